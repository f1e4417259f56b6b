# Writes the TIFF stacks TestTIFFStacks reads, with tifffile's writer
# (Debian's python3-tifffile 2023.2.3), VTK's (python3-vtk9, VTK 9.1) and
# libtiff's tiffcp (libtiff-tools 4.5): 6x5x4 images of 16-bit values (x fastest, then rows
# from the top, then pages) in the forms ImageJ, Fiji, tifffile and VTK
# write. read.json holds what tifffile reads of each (its pixels in goeq's
# order: rows from the bottom, pages from the last) and the spacing
# ImageJ's calibration gives. Run it here with /usr/bin/python3 make.py;
# the test does not run it.
import json
import os
import subprocess
import tempfile

import numpy as np
import tifffile
import vtk
from vtk.util import numpy_support

w, h, d = 6, 5, 4
flat = -300 + np.arange(w * h * d) * 37
stack = flat.reshape((d, h, w))  # pages, rows from the top, columns
grey = {'photometric': 'minisblack'}

tifffile.imwrite('imagej.tif', (stack + 300).astype('<u2'), imagej=True, resolution=(2, 2),
                 metadata={'axes': 'ZYX', 'spacing': 1.0, 'unit': 'um'})
tifffile.imwrite('imagej-float.tif', stack.astype('<f4'), imagej=True, resolution=(2, 2),
                 metadata={'axes': 'ZYX', 'spacing': 1.0, 'unit': 'um'})
tifffile.imwrite('int16.tif', stack.astype('<i2'), **grey)
tifffile.imwrite('big-endian.tif', stack.astype('>i2'), byteorder='>', **grey)
tifffile.imwrite('bigtiff.tif', stack.astype('<i2'), bigtiff=True, **grey)
tifffile.imwrite('zlib.tif', stack.astype('<i2'), compression='zlib', **grey)
tifffile.imwrite('strips.tif', stack.astype('<i2'), rowsperstrip=2, **grey)
tifffile.imwrite('double.tif', stack.astype('<f8'), **grey)
tifffile.imwrite('bytes.tif', ((stack + 300) // 20).astype('u1'), **grey)
tifffile.imwrite('white-is-zero.tif', (stack + 300).astype('<u2'), photometric='miniswhite')
os.makedirs('folder', exist_ok=True)
for i, page in enumerate(stack):  # slice8 .. slice11: slice10 after slice9
    tifffile.imwrite('folder/slice%d.tif' % (i + 8), page.astype('<i2'), **grey)
# image sequences of PNG slices, as 3D Slicer, ImageJ and others save
# them, by Pillow (python3-pil): 16-bit grey, 8-bit grey, and 8-bit RGB
# of grey pixels
from PIL import Image
for folder, pages, mode in [('png16', (stack + 300).astype('<u2'), None), ('png8', ((stack + 300) // 20).astype('u1'), None),
                            ('pngrgb', ((stack + 300) // 20).astype('u1'), 'RGB')]:
    os.makedirs(folder, exist_ok=True)
    for i, page in enumerate(pages):
        img = Image.fromarray(page)
        if mode:
            img = img.convert(mode)
        img.save('%s/slice_%d.png' % (folder, i + 9))  # slice_9, slice_10, ...

# VTK's writer: libtiff's strips, compressed, a horizontal predictor with
# Deflate (VTK 9.1's LZW is not libtiff's: it says LZW is disabled, and
# libtiff reads its samples as their differences); VTK writes its rows
# from y = 0 on
img = vtk.vtkImageData()
img.SetDimensions(w, h, d)
img.SetSpacing(0.5, 0.5, 0.5)
img.GetPointData().SetScalars(numpy_support.numpy_to_vtk((stack + 300).ravel().astype('<u2'), deep=1,
                                                         array_type=vtk.VTK_UNSIGNED_SHORT))
for name, compression in [('vtk-packbits.tif', 'PackBits'), ('vtk-deflate.tif', 'Deflate')]:
    wr = vtk.vtkTIFFWriter()
    wr.SetInputData(img)
    wr.SetFileName(name)
    getattr(wr, 'SetCompressionTo' + compression)()
    wr.Write()
# libtiff's tiffcp: LZW without a predictor, and with one on bytes
subprocess.run(['tiffcp', '-c', 'lzw', 'int16.tif', 'lzw.tif'], check=True)
subprocess.run(['tiffcp', '-c', 'lzw:2', 'bytes.tif', 'lzw-bytes.tif'], check=True)
subprocess.run(['tiffcp', '-c', 'zip:2', 'int16.tif', 'zip.tif'], check=True)
# refused
tifffile.imwrite('rgb.tif', np.zeros((d, h, w, 3), 'u1'), photometric='rgb')
tifffile.imwrite('one-page.tif', stack[0].astype('<i2'), **grey)
tifffile.imwrite('channels.tif', np.zeros((d, 2, h, w), 'u2'), imagej=True, metadata={'axes': 'ZCYX'})
tifffile.imwrite('tiled.tif', np.zeros((d, 32, 32), 'u2'), tile=(16, 16), **grey)



def pages(name):
    """Each page's pixels, read page by page: tifffile reads the pages of
    a file its own description calls contiguous as if they were, and
    tiffcp's copies are not."""
    with tifffile.TiffFile(name) as tif:
        return np.stack([page.asarray() for page in tif.pages])


read = {}
for name in ['imagej.tif', 'imagej-float.tif', 'int16.tif', 'big-endian.tif', 'bigtiff.tif', 'zlib.tif', 'strips.tif',
             'double.tif', 'bytes.tif', 'white-is-zero.tif', 'folder', 'vtk-packbits.tif', 'vtk-deflate.tif', 'lzw.tif', 'lzw-bytes.tif', 'zip.tif', 'png16', 'png8', 'pngrgb']:
    if name == 'folder':
        files = ['folder/slice%d.tif' % (i + 8) for i in range(d)]
        pixels = np.stack([pages(f) for f in files])[:, 0]
        first = tifffile.TiffFile(files[0])
    elif name.startswith('png'):
        files = ['%s/slice_%d.png' % (name, i + 9) for i in range(d)]
        pixels = np.stack([np.asarray(Image.open(f).convert('I;16') if name == 'png16' else Image.open(f).convert('L')) for f in files])
        first = tifffile.TiffFile('int16.tif')  # no resolution: spaced 1 1 1
    else:
        first = tifffile.TiffFile(name)
        if first.pages[0].compression == tifffile.COMPRESSION.LZW:
            plain = tempfile.mktemp(suffix='.tif')
            subprocess.run(['tiffcp', '-c', 'none', name, plain], check=True)
            pixels = pages(plain)
            os.remove(plain)
        else:
            pixels = pages(name)
    with first:
        page = first.pages[0]
        if page.photometric == tifffile.PHOTOMETRIC.MINISWHITE:
            pixels = -pixels.astype(float)
        x, y = (1 / r for r in page.get_resolution()) if 'XResolution' in page.tags else (1, 1)
        z = (first.imagej_metadata or {}).get('spacing', x)
        print(name, pixels.shape, pixels.dtype, page.compression, page.predictor, page.rowsperstrip, (x, y, z))
    assert pixels.shape == (d, h, w), name
    read[name] = {'spacing': [x, y, z], 'values': pixels[::-1, ::-1, :].astype(float).ravel().tolist()}
with open('read.json', 'w') as f:
    json.dump(read, f, indent=0)
