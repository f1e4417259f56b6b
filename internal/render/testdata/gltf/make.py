# Writes the glTF 2 models TestGLTF reads (its own small writer, below,
# with numpy), and read.json: what VTK's glTF reader (Debian's
# python3-vtk9, VTK 9.1) reads of each, its triangles' corners placed by
# the nodes' transforms (after vtkTriangleFilter) and their linear
# COLOR_0, and the sRGB bytes a material's base colour shows as. Run it
# here with /usr/bin/python3 make.py; the test does not run it.
import base64
import json
import math
import struct

import numpy as np
import vtk
from vtk.util import numpy_support


class Doc:
    def __init__(self):
        self.g = {'asset': {'version': '2.0'}, 'buffers': [], 'bufferViews': [], 'accessors': [], 'meshes': [],
                  'nodes': [], 'scenes': [], 'materials': []}
        self.data = bytearray()

    def view(self, raw, stride=None):
        while len(self.data) % 4:
            self.data.append(0)
        v = {'buffer': 0, 'byteOffset': len(self.data), 'byteLength': len(raw)}
        if stride:
            v['byteStride'] = stride
        self.data += raw
        self.g['bufferViews'].append(v)
        return len(self.g['bufferViews']) - 1

    def accessor(self, view, ctype, count, typ, offset=0, normalized=False, bounds=None):
        a = {'bufferView': view, 'componentType': ctype, 'count': count, 'type': typ, 'byteOffset': offset}
        if normalized:
            a['normalized'] = True
        if bounds is not None:
            a['min'], a['max'] = [float(x) for x in bounds.min(0)], [float(x) for x in bounds.max(0)]
        self.g['accessors'].append(a)
        return len(self.g['accessors']) - 1

    def array(self, values, ctype, typ, normalized=False):
        values = np.ascontiguousarray(values)
        bounds = values.astype(float) if typ == 'VEC3' and ctype in (5126, 5122) else None
        return self.accessor(self.view(values.tobytes()), ctype, len(values), typ, normalized=normalized,
                             bounds=bounds if bounds is None else bounds.reshape(len(values), -1))

    def save(self, name, bin_name=None, glb=False):
        g = dict(self.g)
        if glb:
            g['buffers'] = [{'byteLength': len(self.data)}]
            text = json.dumps(g).encode()
            text += b' ' * (-len(text) % 4)
            data = bytes(self.data) + b'\0' * (-len(self.data) % 4)
            out = struct.pack('<4sII', b'glTF', 2, 12 + 8 + len(text) + 8 + len(data))
            out += struct.pack('<II', len(text), 0x4E4F534A) + text + struct.pack('<II', len(data), 0x004E4942) + data
            open(name, 'wb').write(out)
            return
        if bin_name:
            g['buffers'] = [{'byteLength': len(self.data), 'uri': bin_name.replace(' ', '%20')}]
            open(bin_name, 'wb').write(self.data)
        else:
            g['buffers'] = [{'byteLength': len(self.data),
                             'uri': 'data:application/octet-stream;base64,' + base64.b64encode(self.data).decode()}]
        json.dump(g, open(name, 'w'), indent=1)


def sphere(res=9):
    s = vtk.vtkSphereSource()
    s.SetThetaResolution(res)
    s.SetPhiResolution(res - 2)
    s.Update()
    out = s.GetOutput()
    points = numpy_support.vtk_to_numpy(out.GetPoints().GetData()).astype('<f4')
    normals = numpy_support.vtk_to_numpy(out.GetPointData().GetNormals()).astype('<f4')
    polys = numpy_support.vtk_to_numpy(out.GetPolys().GetData()).reshape(-1, 4)[:, 1:]
    return points, normals, polys


points, normals, polys = sphere()

# nodes.gltf: one mesh placed by three nodes (translation, rotation and
# scale; a child's matrix; a mirroring scale), a fourth node outside the
# scene; its buffer in a .bin beside it; a material's colour
d = Doc()
pos = d.array(points, 5126, 'VEC3')
nor = d.array(normals, 5126, 'VEC3')
ind = d.array(polys.astype('<u2').ravel(), 5123, 'SCALAR')
d.g['materials'].append({'pbrMetallicRoughness': {'baseColorFactor': [0.8, 0.1, 0.5, 1]}})
d.g['meshes'].append({'primitives': [{'attributes': {'POSITION': pos, 'NORMAL': nor}, 'indices': ind, 'material': 0}]})
half = math.sqrt(0.5)
d.g['nodes'] = [
    {'translation': [2, 0, 0.5], 'rotation': [0, half, 0, half], 'scale': [1, 2, 1], 'children': [1], 'mesh': 0},
    {'matrix': [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 3, 0, 1], 'mesh': 0},
    {'scale': [-1, 1, 1], 'translation': [-2, 0, 0], 'mesh': 0},
    {'translation': [0, 0, 9], 'mesh': 0},
]
d.g['scenes'] = [{'nodes': [0, 2]}]
d.g['scene'] = 0
d.save('nodes.gltf', 'nodes.bin')

# interleaved.glb: positions and normals in one view 24 bytes apart,
# colours of four normalized bytes, indices of 32 bits, in a .glb
d = Doc()
both = np.hstack([points, normals]).astype('<f4')
view = d.view(both.tobytes(), stride=24)
pos = d.accessor(view, 5126, len(points), 'VEC3', 0, bounds=points)
nor = d.accessor(view, 5126, len(points), 'VEC3', 12)
rgba = np.array([[int(255 * (p[0] + 0.5)), int(255 * (p[1] + 0.5)), (i * 47) % 256, 255] for i, p in enumerate(points)], 'u1')
col = d.array(rgba, 5121, 'VEC4', normalized=True)
ind = d.array(polys.astype('<u4').ravel(), 5125, 'SCALAR')
d.g['meshes'].append({'primitives': [{'attributes': {'POSITION': pos, 'NORMAL': nor, 'COLOR_0': col}, 'indices': ind}]})
d.g['nodes'] = [{'mesh': 0}]
d.g['scenes'] = [{'nodes': [0]}]
d.save('interleaved.glb', glb=True)

# strips.gltf: a strip and a fan of no indices, no normals, colours of
# three floats, its buffer a data: uri; and a line strip, not drawn
d = Doc()
strip = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [2, 0, 0], [2, 1, 0]], '<f4')
fan = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 1.2], [0, 1, 1.4], [-1, 1, 1.2]], '<f4')
s = d.array(strip, 5126, 'VEC3')
sc = d.array(np.linspace(0, 1, 18).reshape(6, 3).astype('<f4'), 5126, 'VEC3')
f = d.array(fan, 5126, 'VEC3')
fc = d.array(np.linspace(1, 0, 15).reshape(5, 3).astype('<f4'), 5126, 'VEC3')
d.g['meshes'].append({'primitives': [{'attributes': {'POSITION': s, 'COLOR_0': sc}, 'mode': 5},
                                     {'attributes': {'POSITION': f, 'COLOR_0': fc}, 'mode': 6},
                                     {'attributes': {'POSITION': s}, 'mode': 3}]})
d.g['nodes'] = [{'mesh': 0}]
d.g['scenes'] = [{'nodes': [0]}]
d.save('strips.gltf')

# quantized.gltf: positions of normalized 16-bit integers, scaled back by
# the node (KHR_mesh_quantization), indices of bytes
d = Doc()
q = np.round(points / 0.5 * 32767).astype('<i2')
pos = d.array(q, 5122, 'VEC3', normalized=True)
ind = d.array(polys.astype('u1').ravel(), 5121, 'SCALAR')
d.g['meshes'].append({'primitives': [{'attributes': {'POSITION': pos}, 'indices': ind}]})
d.g['nodes'] = [{'mesh': 0, 'scale': [0.5, 0.5, 0.5]}]
d.g['scenes'] = [{'nodes': [0]}]
d.g['extensionsUsed'] = d.g['extensionsRequired'] = ['KHR_mesh_quantization']
d.save('quantized.gltf')

# refused
for name, change in [('draco.gltf', lambda g: g.update(extensionsRequired=['KHR_draco_mesh_compression'])),
                     ('version1.gltf', lambda g: g['asset'].update(version='1.0')),
                     ('lines.gltf', lambda g: g['meshes'][0].update(primitives=[g['meshes'][0]['primitives'][2]]))]:
    g = json.load(open('strips.gltf'))
    change(g)
    json.dump(g, open(name, 'w'), indent=1)


def srgb(c):
    c = min(max(c, 0), 1)
    c = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
    return round(c * 255)


read = {}
for name in ['nodes.gltf', 'interleaved.glb', 'strips.gltf', 'quantized.gltf']:
    r = vtk.vtkGLTFReader()
    r.SetFileName(name)
    r.Update()
    it = r.GetOutput().NewIterator()
    it.InitTraversal()
    triangles = []
    while not it.IsDoneWithTraversal():
        t = vtk.vtkTriangleFilter()
        t.SetInputData(it.GetCurrentDataObject())
        t.PassLinesOff()
        t.PassVertsOff()
        t.Update()
        out = t.GetOutput()
        colors = out.GetPointData().GetArray('COLOR_0')
        for i in range(out.GetNumberOfCells()):
            ids = out.GetCell(i).GetPointIds()
            tri = {'corners': [list(out.GetPoint(ids.GetId(k))) for k in range(3)]}
            if colors:
                tri['colors'] = [[srgb(c) for c in colors.GetTuple(ids.GetId(k))[:3]] for k in range(3)]
            triangles.append(tri)
        it.GoToNextItem()
    read[name] = triangles
    print(name, len(triangles))
read['material'] = [srgb(0.8), srgb(0.1), srgb(0.5)]
json.dump(read, open('read.json', 'w'))
