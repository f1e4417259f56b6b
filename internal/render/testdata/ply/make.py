#!/usr/bin/python3
# Makes the face-coloured PLY models of TestReadPLYFaceColours with VTK's
# own PLY writer (Debian's python3-vtk9), and faces.json: each face's
# corners and colour as VTK's PLY reader reads them back.
#   cd internal/render/testdata/ply && /usr/bin/python3 make.py
import json
import vtk

sphere = vtk.vtkSphereSource()
sphere.SetThetaResolution(9)
sphere.SetPhiResolution(7)
sphere.Update()
mesh = sphere.GetOutput()
colors = vtk.vtkUnsignedCharArray()
colors.SetName("Colors")
colors.SetNumberOfComponents(3)
for i in range(mesh.GetNumberOfCells()):
    # neighbouring faces of other colours, and some of one
    colors.InsertNextTuple3((i * 37) % 256, (i // 4 * 90) % 256, 255 - (i * 11) % 256)
mesh.GetCellData().SetScalars(colors)

for name, binary in (("faces-ascii.ply", False), ("faces-binary.ply", True)):
    w = vtk.vtkPLYWriter()
    w.SetFileName(name)
    w.SetInputData(mesh)
    w.SetArrayName("Colors")
    w.SetFileTypeToBinary() if binary else w.SetFileTypeToASCII()
    w.Write()

r = vtk.vtkPLYReader()
r.SetFileName("faces-binary.ply")
r.Update()
out = r.GetOutput()
points = out.GetPoints()
cellColors = out.GetCellData().GetScalars()
faces = []
for i in range(out.GetNumberOfCells()):
    ids = out.GetCell(i).GetPointIds()
    corners = [list(points.GetPoint(ids.GetId(k))) for k in range(ids.GetNumberOfIds())]
    faces.append({"corners": corners, "color": [int(c) for c in cellColors.GetTuple3(i)]})
with open("faces.json", "w") as f:
    json.dump(faces, f)

# the sphere as VTK's STL writer writes it (binary and ASCII: a triangle's
# corners each its own, no colours) and its OBJ writer (vertices, normals,
# faces of v//vn), and triangles.json: each triangle's corners as VTK's
# STL reader reads them back
plain = vtk.vtkSphereSource()
plain.SetThetaResolution(9)
plain.SetPhiResolution(7)
plain.Update()
for name, binary in (("sphere-binary.stl", True), ("sphere-ascii.stl", False)):
    w = vtk.vtkSTLWriter()
    w.SetFileName(name)
    w.SetInputData(plain.GetOutput())
    w.SetFileTypeToBinary() if binary else w.SetFileTypeToASCII()
    w.Write()
w = vtk.vtkOBJWriter()
w.SetFileName("sphere.obj")
w.SetInputData(plain.GetOutput())
w.Write()
r = vtk.vtkSTLReader()
r.SetFileName("sphere-binary.stl")
r.Update()
out = r.GetOutput()
triangles = []
for i in range(out.GetNumberOfCells()):
    ids = out.GetCell(i).GetPointIds()
    triangles.append([list(out.GetPoints().GetPoint(ids.GetId(k))) for k in range(3)])
with open("triangles.json", "w") as f:
    json.dump(triangles, f)
