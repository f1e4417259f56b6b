# Writes the colour map presets TestColourMapsBlendAsVTKDoes reads, each
# (some also in ParaView's older XML, NAME.xml) beside VTK's own table of it (NAME.vtk.json: 256 RGBA values, 0 to 1, at
# the x the volume's values 0 to 255 take), computed with VTK's colour
# transfer and piecewise functions (Debian's python3-vtk9, VTK 9.1), as
# ParaView hands a preset to them. Run it here with /usr/bin/python3
# make.py; the test does not run it.
import json
import vtk

# Moreland's published diverging end points and ParaView's grey middle
COOL, GREY, WARM = [0.230, 0.299, 0.754], [0.865, 0.865, 0.865], [0.706, 0.016, 0.150]

presets = {
    'cool-to-warm': {'ColorSpace': 'Diverging',
                     'RGBPoints': [-100] + COOL + [0] + GREY + [100] + WARM,
                     'Points': [-100, 0, 0.5, 0, -20, 0.1, 0.25, 0.3, 40, 0.6, 0.8, 0.7, 100, 1, 0.5, 0]},
    'diverging-ends': {'ColorSpace': 'Diverging', 'RGBPoints': [0] + COOL + [1] + WARM},
    'diverging-grey-to-red': {'ColorSpace': 'Diverging', 'RGBPoints': [0, 0.3, 0.3, 0.3, 1, 0.9, 0.1, 0.1]},
    'diverging-white-to-blue': {'ColorSpace': 'Diverging', 'RGBPoints': [0, 1, 1, 1, 1, 0.1, 0.2, 0.6]},
    'lab': {'ColorSpace': 'Lab',
            'RGBPoints': [0, 0, 0, 0.35, 0.3, 0.1, 0.6, 0.2, 0.7, 1, 0.9, 0, 1, 1, 1, 1]},
    'hsv': {'ColorSpace': 'HSV', 'RGBPoints': [0, 1, 0, 0, 0.5, 0, 0.8, 0.3, 1, 0.6, 0, 1]},
    'hsv-wrapped': {'ColorSpace': 'HSV', 'HSVWrap': 1,
                    'RGBPoints': [0, 1, 0, 0.2, 0.4, 1, 0.9, 0, 1, 0.2, 0.4, 0.9]},
    'hsv-unwrapped': {'ColorSpace': 'HSV',
                      'RGBPoints': [0, 1, 0, 0.2, 0.4, 1, 0.9, 0, 1, 0.2, 0.4, 0.9]},
    'step': {'ColorSpace': 'Step',
             'RGBPoints': [0, 0.1, 0.1, 0.8, 0.25, 0.2, 0.8, 0.2, 0.6, 0.9, 0.9, 0.1, 1, 0.8, 0.1, 0.1]},
    'rgb-shaped-opacity': {'ColorSpace': 'RGB',
                           'RGBPoints': [0, 0, 0, 0, 1, 1, 0.5, 0.2],
                           'Points': [0, 0, 0.2, 0, 0.2, 0.8, 0.8, 0.5, 0.5, 0.2, 0.5, 1, 0.7, 0.9, 0.35, 0.05, 1, 0.3, 0.5, 0]},
}

spaces = {'RGB': 'SetColorSpaceToRGB', 'HSV': 'SetColorSpaceToHSV', 'Lab': 'SetColorSpaceToLab',
          'Diverging': 'SetColorSpaceToDiverging', 'Step': 'SetColorSpaceToStep'}

for name, p in presets.items():
    ctf = vtk.vtkColorTransferFunction()
    getattr(ctf, spaces[p['ColorSpace']])()
    ctf.SetHSVWrap(p.get('HSVWrap', 0))  # ParaView applies 0 unless the preset says
    rgb = p['RGBPoints']
    for i in range(0, len(rgb), 4):
        ctf.AddRGBPoint(*rgb[i:i + 4])
    opacity = None
    if 'Points' in p:
        opacity = vtk.vtkPiecewiseFunction()
        pts = p['Points']
        for i in range(0, len(pts), 4):
            opacity.AddPoint(*pts[i:i + 4])
    lo, hi = rgb[0], rgb[-4]
    table = []
    for v in range(256):
        x = lo + (hi - lo) * v / 255
        a = opacity.GetValue(x) if opacity else None
        table.append([round(c, 6) for c in ctf.GetColor(x)] + ([round(a, 6)] if a is not None else []))
    with open(name + '.json', 'w') as f:
        json.dump(dict(Name=name, **p), f, indent=1)
        f.write('\n')
    with open(name + '.vtk.json', 'w') as f:
        f.write('[\n' + ',\n'.join(json.dumps(row) for row in table) + '\n]\n')


# ParaView's older XML of some: points out of order, each with the o
# ParaView writes and does not read, a NaN colour; HSVWrap as "Wrapped"
def xml_map(name, p):
    space = 'Wrapped' if p.get('HSVWrap') else p['ColorSpace']
    rgb = p['RGBPoints']
    pts = [rgb[i:i + 4] for i in range(0, len(rgb), 4)]
    pts = pts[1::2] + pts[0::2]
    lines = ['  <ColorMap name="%s" space="%s">' % (name, space)]
    lines += ['    <Point x="%r" o="1" r="%r" g="%r" b="%r"/>' % tuple(pt) for pt in pts]
    lines += ['    <NaN r="1" g="1" b="0"/>', '  </ColorMap>']
    return lines


for name in ['lab', 'hsv-wrapped', 'step']:
    with open(name + '.xml', 'w') as f:
        f.write('\n'.join(['<ColorMaps>'] + xml_map(name, presets[name]) + ['</ColorMaps>']) + '\n')
# one ColorMap alone, and a list whose first is taken
with open('diverging-ends.xml', 'w') as f:
    f.write('\n'.join(xml_map('diverging-ends', presets['diverging-ends'])).strip() + '\n')
with open('hsv.xml', 'w') as f:
    f.write('\n'.join(['<ColorMaps>'] + xml_map('hsv', presets['hsv']) + xml_map('lab', presets['lab']) + ['</ColorMaps>']) + '\n')
