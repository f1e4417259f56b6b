# Writes the VTK surfaces TestVTKSurfaces reads, with VTK's own writers
# (Debian's python3-vtk9, VTK 9.1): a small sphere whose vertices are
# coloured (3 bytes a point, as VTK's PLY reader names them RGB) with its
# normals, and the same sphere as triangle strips with its faces coloured,
# as XML PolyData (.vtp, ParaView's own format for surfaces) in each form
# VTK writes and as legacy .vtk files (4.2 and 5.1, ASCII and binary).
# read.json holds what VTK's readers read back: each triangle's corners
# (after vtkTriangleFilter, strips and polygons alike) and colour, and each
# point's colour. Run it here with /usr/bin/python3 make.py; the test does
# not run it.
import json

import vtk

sphere = vtk.vtkSphereSource()
sphere.SetThetaResolution(9)
sphere.SetPhiResolution(7)
sphere.Update()
points = sphere.GetOutput()  # with its Normals
rgb = vtk.vtkUnsignedCharArray()
rgb.SetName('RGB')
rgb.SetNumberOfComponents(3)
for i in range(points.GetNumberOfPoints()):
    p = points.GetPoint(i)
    rgb.InsertNextTuple3(int(127.5 + 127 * p[0] / 0.5), int(127.5 + 127 * p[1] / 0.5), (i * 53) % 256)
points.GetPointData().SetScalars(rgb)

# the faces coloured, as strips
stripper = vtk.vtkStripper()
stripper.SetInputData(sphere.GetOutput())
stripper.Update()
strips = vtk.vtkPolyData()
strips.DeepCopy(stripper.GetOutput())
strips.GetPointData().SetScalars(None)
strips.GetPointData().SetNormals(None)
# a quad among the strips: VTK's polygons are any polygons
quad = vtk.vtkPolyData()
faces = vtk.vtkUnsignedCharArray()
faces.SetName('FaceColors')
faces.SetNumberOfComponents(3)
for i in range(strips.GetNumberOfCells()):
    faces.InsertNextTuple3((i * 71) % 256, 255 - (i * 29) % 256, 40)
strips.GetCellData().SetScalars(faces)

# the strips with two vertex cells and a line before them, as VTK numbers
# cells, and every cell coloured: the colours of the strips come after
# theirs
mixed = vtk.vtkPolyData()
mixed.DeepCopy(strips)
verts = vtk.vtkCellArray()
verts.InsertNextCell(1, [0])
verts.InsertNextCell(1, [1])
mixed.SetVerts(verts)
lines = vtk.vtkCellArray()
lines.InsertNextCell(2, [0, 1])
mixed.SetLines(lines)
mixedColors = vtk.vtkUnsignedCharArray()
mixedColors.SetName('FaceColors')
mixedColors.SetNumberOfComponents(3)
for c in ((1, 2, 3), (4, 5, 6), (7, 8, 9)):
    mixedColors.InsertNextTuple3(*c)
for i in range(strips.GetNumberOfCells()):
    mixedColors.InsertNextTuple3(*faces.GetTuple3(i))
mixed.GetCellData().SetScalars(mixedColors)


def xml(name, data, mode=None, compressor='zlib', encode=True, header=None, big=False, pieces=1):
    w = vtk.vtkXMLPolyDataWriter()
    if pieces > 1:
        w.SetInputConnection(data)  # a source that makes each piece by itself
    else:
        w.SetInputData(data)
    w.SetFileName(name)
    {'ascii': w.SetDataModeToAscii, 'binary': w.SetDataModeToBinary,
     'appended': w.SetDataModeToAppended, None: lambda: None}[mode]()
    {None: w.SetCompressorTypeToNone, 'zlib': w.SetCompressorTypeToZLib}[compressor]()
    w.SetEncodeAppendedData(encode)
    if header == 64:
        w.SetHeaderTypeToUInt64()
    if big:
        w.SetByteOrderToBigEndian()
    w.SetNumberOfPieces(pieces)
    w.Write()


def legacy(name, data, binary, version):
    w = vtk.vtkPolyDataWriter()
    w.SetInputData(data)
    w.SetFileName(name)
    w.SetFileTypeToBinary() if binary else w.SetFileTypeToASCII()
    if version == 42:
        w.SetFileVersion(42)
    w.Write()


for stem, data in (('points', points), ('strips', strips)):
    xml(stem + '.vtp', data)
    xml(stem + '-raw.vtp', data, mode='appended', compressor=None, encode=False)
    xml(stem + '-raw-zlib.vtp', data, mode='appended', encode=False)
    xml(stem + '-base64.vtp', data, mode='appended', compressor=None)
    xml(stem + '-inline.vtp', data, mode='binary')
    xml(stem + '-ascii.vtp', data, mode='ascii', compressor=None)
    xml(stem + '-uint64.vtp', data, mode='appended', encode=False, header=64)
    xml(stem + '-big.vtp', data, mode='appended', compressor=None, encode=False, big=True)
    legacy(stem + '-ascii.vtk', data, False, 51)
    legacy(stem + '-binary.vtk', data, True, 51)
    legacy(stem + '-ascii42.vtk', data, False, 42)
    legacy(stem + '-binary42.vtk', data, True, 42)
xml('mixed.vtp', mixed)
# the sphere in three pieces, as a parallel run writes one
xml('pieces.vtp', sphere.GetOutputPort(), pieces=3)
# and as a parallel surface: a .pvtp naming a .vtp a piece
pw = vtk.vtkXMLPPolyDataWriter()
pw.SetInputConnection(sphere.GetOutputPort())
pw.SetFileName('parallel.pvtp')
pw.SetNumberOfPieces(3)
pw.SetStartPiece(0)
pw.SetEndPiece(2)
pw.Write()
legacy('mixed-binary.vtk', mixed, True, 51)
legacy('mixed-ascii42.vtk', mixed, False, 42)


def read(name):
    r = {'.vtp': vtk.vtkXMLPolyDataReader, 'pvtp': vtk.vtkXMLPPolyDataReader, '.vtk': vtk.vtkPolyDataReader}[name[-4:]]()
    r.SetFileName(name)
    t = vtk.vtkTriangleFilter()
    t.SetInputConnection(r.GetOutputPort())
    t.PassVertsOff()
    t.PassLinesOff()
    t.Update()
    out = t.GetOutput()
    pts = out.GetPoints()
    cellColors = out.GetCellData().GetScalars()
    pointColors = out.GetPointData().GetScalars()
    triangles = []
    for i in range(out.GetNumberOfCells()):
        ids = out.GetCell(i).GetPointIds()
        tri = {'corners': [list(pts.GetPoint(ids.GetId(k))) for k in range(3)]}
        if cellColors:
            tri['color'] = [int(c) for c in cellColors.GetTuple3(i)]
        triangles.append(tri)
    colors = []
    if pointColors:
        colors = [{'at': list(pts.GetPoint(i)), 'color': [int(c) for c in pointColors.GetTuple3(i)]}
                  for i in range(out.GetNumberOfPoints())]
    return {'triangles': triangles, 'colors': colors, 'normals': out.GetPointData().GetNormals() is not None}


result = {name: read(name) for name in ('points.vtp', 'strips.vtp', 'mixed.vtp', 'pieces.vtp', 'parallel.pvtp')}
with open('read.json', 'w') as f:
    json.dump(result, f)
for k, v in result.items():
    print(k, len(v['triangles']), len(v['colors']), v['normals'])
