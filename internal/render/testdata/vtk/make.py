# Writes the VTK volumes TestVTKVolumes reads, with VTK's own writers
# (Debian's python3-vtk9, VTK 9.1): a 6x5x4 image of 16-bit values
# -300 + 37 i, spaced 1 1 2, in each of the forms VTK writes. Run it here
# with /usr/bin/python3 make.py; the test does not run it.
import numpy as np
import vtk
from vtk.util import numpy_support

w, h, d = 6, 5, 4
ramp = (-300 + np.arange(w * h * d) * 37).astype('<i2')


def image(values=ramp, kind=vtk.VTK_SHORT, name='density'):
    img = vtk.vtkImageData()
    img.SetDimensions(w, h, d)
    img.SetSpacing(1, 1, 2)
    a = numpy_support.numpy_to_vtk(values, deep=1, array_type=kind)
    a.SetName(name)
    img.GetPointData().SetScalars(a)
    return img


def xml(name, img=None, mode=None, compressor='zlib', encode=True, header=None, block=None, big=False):
    wr = vtk.vtkXMLImageDataWriter()
    wr.SetInputData(img or image())
    wr.SetFileName(name)
    {'ascii': wr.SetDataModeToAscii, 'binary': wr.SetDataModeToBinary,
     'appended': wr.SetDataModeToAppended, None: lambda: None}[mode]()
    {None: wr.SetCompressorTypeToNone, 'lz4': wr.SetCompressorTypeToLZ4,
     'lzma': wr.SetCompressorTypeToLZMA, 'zlib': wr.SetCompressorTypeToZLib}[compressor]()
    wr.SetEncodeAppendedData(encode)
    if header == 64:
        wr.SetHeaderTypeToUInt64()
    if block:
        wr.SetBlockSize(block)
    if big:
        wr.SetByteOrderToBigEndian()
    wr.Write()


xml('default.vti')
xml('raw-appended.vti', mode='appended', compressor=None, encode=False)
xml('raw-appended-zlib.vti', mode='appended', encode=False)
xml('base64-appended.vti', mode='appended', compressor=None)
xml('inline-binary.vti', mode='binary')
xml('inline-binary-plain.vti', mode='binary', compressor=None)
xml('ascii.vti', mode='ascii', compressor=None)
xml('uint64-header.vti', mode='appended', encode=False, header=64)
xml('lz4.vti', mode='appended', compressor='lz4', encode=False)
xml('lzma.vti', mode='appended', compressor='lzma', encode=False)
xml('blocks.vti', mode='appended', encode=False, block=64)
xml('blocks-base64.vti', mode='appended', block=64)
xml('bigendian.vti', big=True)

# a vector array before the scalars, named as the active scalars or not
img = vtk.vtkImageData()
img.SetDimensions(w, h, d)
img.SetSpacing(1, 1, 2)
vec = numpy_support.numpy_to_vtk(np.ones((w * h * d, 3), dtype='<f4'), deep=1, array_type=vtk.VTK_FLOAT)
vec.SetName('velocity')
img.GetPointData().AddArray(vec)
p = numpy_support.numpy_to_vtk(ramp.astype('<f8'), deep=1, array_type=vtk.VTK_DOUBLE)
p.SetName('pressure')
img.GetPointData().AddArray(p)
xml('vector-first.vti', img)
img.GetPointData().SetActiveScalars('pressure')
xml('active-scalars.vti', img)

# cell data only
cells = vtk.vtkImageData()
cells.SetDimensions(w, h, d)
c = numpy_support.numpy_to_vtk(np.arange((w - 1) * (h - 1) * (d - 1)).astype('<f4'), deep=1, array_type=vtk.VTK_FLOAT)
c.SetName('cells')
cells.GetCellData().SetScalars(c)
xml('cells.vti', cells)

wr = vtk.vtkXMLImageDataWriter()
wr.SetInputData(image())
wr.SetFileName('pieces.vti')
wr.SetNumberOfPieces(2)
wr.Write()

for name, binary, version in [('binary.vtk', True, None), ('ascii.vtk', False, None), ('v42.vtk', True, 42)]:
    wr = vtk.vtkStructuredPointsWriter()
    wr.SetInputData(image())
    wr.SetFileName(name)
    if version:
        wr.SetFileVersion(version)
    wr.SetFileTypeToBinary() if binary else wr.SetFileTypeToASCII()
    wr.Write()

# a parallel image: VTK's wavelet in four pieces (a .pvti and wave_0.vti
# to wave_3.vti), and the same image whole
wave = vtk.vtkRTAnalyticSource()
wave.SetWholeExtent(0, 7, 0, 5, 0, 3)
pw = vtk.vtkXMLPImageDataWriter()
pw.SetInputConnection(wave.GetOutputPort())
pw.SetFileName('wave.pvti')
pw.SetNumberOfPieces(4)
pw.SetStartPiece(0)
pw.SetEndPiece(3)
pw.Write()
ww = vtk.vtkXMLImageDataWriter()
ww.SetInputConnection(wave.GetOutputPort())
ww.SetFileName('wave-whole.vti')
ww.Write()
