# Writes the NIfTI and Analyze volumes TestNIfTIVolumes reads, with
# nibabel's writers (Debian's python3-nibabel 5.0) and VTK's (python3-vtk9,
# VTK 9.1): a 6x5x4 image of 16-bit values -300 + 37 i (x fastest),
# spaced 1 1 2, in the forms neuroimaging tools write. read.json holds what
# VTK's vtkNIFTIImageReader (ParaView's) reads of each, and nibabel's
# scaled values where VTK leaves the scaling to its caller. Run it here
# with /usr/bin/python3 make.py; the test does not run it.
import json

import nibabel as nib
import numpy as np
import vtk
from vtk.util import numpy_support

w, h, d = 6, 5, 4
flat = -300 + np.arange(w * h * d) * 37
ramp = flat.astype('<i2').reshape((d, h, w)).transpose(2, 1, 0)  # [x, y, z]
spaced = np.diag([1, 1, 2, 1.0])
mirrored = np.diag([-1, 1, 2, 1.0])  # a left-handed voxel grid, as FSL's radiological files


def save(name, img):
    nib.save(img, name)


save('plain.nii', nib.Nifti1Image(ramp, spaced))
save('packed.nii.gz', nib.Nifti1Image(ramp, spaced))
save('pair.img', nib.Nifti1Pair(ramp, spaced))
save('two.nii', nib.Nifti2Image(ramp, spaced))
save('analyze.img', nib.AnalyzeImage(ramp, spaced))
big = nib.Nifti1Image(ramp.astype('>i2'), spaced, nib.Nifti1Header(endianness='>'))
save('big.nii', big)
save('float.nii', nib.Nifti1Image(ramp.astype('<f4'), spaced))
save('double.nii', nib.Nifti1Image(ramp.astype('<f8'), spaced))
save('uint16.nii', nib.Nifti1Image((ramp + 300).astype('<u2'), spaced))
save('int32.nii', nib.Nifti1Image(ramp.astype('<i4'), spaced))
ext = nib.Nifti1Image(ramp, spaced)
ext.header.extensions.append(nib.nifti1.Nifti1Extension('comment', b'an extension pushes the voxels past byte 352'))
save('extension.nii', ext)
# scaled: stored as the ramp, meant as -2 x + 5 (nibabel's get_fdata)
scaled = nib.Nifti1Image(ramp, spaced)
scaled.header.set_slope_inter(-2, 5)
save('scaled.nii', scaled)
# mirrored grids: VTK reverses their slices to show them right-handed
save('mirrored.nii', nib.Nifti1Image(ramp, mirrored))
sform = nib.Nifti1Image(ramp, mirrored)
sform.set_qform(None, code=0)
sform.header['pixdim'][0] = 1
sform.set_sform(mirrored, code=2)
save('sform-mirrored.nii', sform)
qform = nib.Nifti1Image(ramp, spaced)  # a qform alone, its qfac -1
qform.set_sform(None, code=0)
qform.set_qform(mirrored, code=1)
save('qform-mirrored.nii', qform)
conflict = nib.Nifti1Image(ramp, spaced)  # the qform goes first, as in VTK
conflict.set_qform(spaced, code=1)
conflict.set_sform(mirrored, code=2)
save('qform-first.nii', conflict)
# VTK's own writer
img = vtk.vtkImageData()
img.SetDimensions(w, h, d)
img.SetSpacing(1, 1, 2)
img.GetPointData().SetScalars(numpy_support.numpy_to_vtk(flat.astype('<i2'), deep=1, array_type=vtk.VTK_SHORT))
wr = vtk.vtkNIFTIImageWriter()
wr.SetInputData(img)
wr.SetFileName('vtk.nii')
wr.Write()
# refused
save('time.nii', nib.Nifti1Image(np.stack([ramp, ramp + 1], axis=3), spaced))
rgb = np.zeros((w, h, d), dtype=[('R', 'u1'), ('G', 'u1'), ('B', 'u1')])
save('rgb.nii', nib.Nifti1Image(rgb, spaced))
save('flat.nii', nib.Nifti1Image(ramp[:, :, 0], np.diag([1, 1, 1, 1.0])))

read = {}
for name in ['plain.nii', 'packed.nii.gz', 'pair.hdr', 'two.nii', 'analyze.hdr', 'big.nii', 'float.nii',
             'double.nii', 'uint16.nii', 'int32.nii', 'extension.nii', 'scaled.nii', 'mirrored.nii',
             'sform-mirrored.nii', 'qform-mirrored.nii', 'qform-first.nii', 'vtk.nii']:
    r = vtk.vtkNIFTIImageReader()
    r.SetFileName(name)
    r.Update()
    out = r.GetOutput()
    values = numpy_support.vtk_to_numpy(out.GetPointData().GetScalars()).astype(float)
    if r.GetRescaleSlope() != 1 or r.GetRescaleIntercept() != 0:
        values = np.asarray(nib.load(name).get_fdata()).transpose(2, 1, 0).ravel()
        if r.GetQFac() < 0:
            raise SystemExit(name + ': scaled and mirrored; the test has no such file')
    read[name] = {'dims': list(out.GetDimensions()), 'spacing': list(out.GetSpacing()), 'values': values.tolist()}
with open('read.json', 'w') as f:
    json.dump(read, f, indent=0)
