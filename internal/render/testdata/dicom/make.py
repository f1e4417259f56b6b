# Writes the DICOM series TestDICOMSeries reads, with pydicom 2.3
# (Debian's python3-pydicom) and DCMTK 3.6 (Debian's dcmtk): a 6x5x4 CT
# image whose stored values are the ramp -300 + 37 i (i = (z*5 + y)*6 + x,
# y counted up from the bottom row), rescaled to Hounsfield units by
# 2 v - 1024, pixels 0.5 mm apart, slices 2.5 mm. Run it here with
# /usr/bin/python3 make.py; the test does not run it.
import os
import random
import shutil
import subprocess

import numpy as np
import pydicom
from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import ExplicitVRBigEndian, ExplicitVRLittleEndian, ImplicitVRLittleEndian, generate_uid  # noqa: F401

W, H, D = 6, 5, 4
ramp = (-300 + np.arange(W * H * D) * 37).reshape(D, H, W)  # [z][y up][x]


def slice_ds(z, syntax, series, values, signed=True, bits=16, thickness=2.5):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'  # CT image storage
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = syntax
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.is_little_endian = syntax != ExplicitVRBigEndian
    ds.is_implicit_VR = syntax == ImplicitVRLittleEndian
    ds.SOPClassUID = meta.MediaStorageSOPClassUID
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = 'CT'
    ds.SeriesInstanceUID = series
    ds.InstanceNumber = z + 1
    ds.ImagePositionPatient = [-10, 20, 100 + 2.5 * z]
    ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    ds.PixelSpacing = [0.5, 0.5]
    ds.SliceThickness = thickness  # '': empty, as type 2 elements may be
    # a sequence of undefined length before the pixels, as scanners write
    item = Dataset()
    item.CodeValue = 'T-D1100'
    item.CodingSchemeDesignator = 'SRT'
    ds.AnatomicRegionSequence = Sequence([item])
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.Rows, ds.Columns = H, W
    ds.BitsAllocated = bits
    ds.BitsStored = bits
    ds.HighBit = bits - 1
    ds.PixelRepresentation = 1 if signed else 0
    ds.RescaleIntercept = -1024
    ds.RescaleSlope = 2
    rows = values[z][::-1]  # DICOM's first row is the top
    dtype = {(32, True): 'i4', (16, True): 'i2', (16, False): 'u2', (8, False): 'u1'}[(bits, signed)]
    order = '>' if syntax == ExplicitVRBigEndian else '<'
    ds.PixelData = rows.astype(order + dtype).tobytes()
    return ds


def series(folder, syntax, values=ramp, shuffle=True, prefix='IM', **kw):
    os.makedirs(folder, exist_ok=True)
    uid = generate_uid()
    zs = list(range(D))
    if shuffle:
        random.Random(7).shuffle(zs)  # names and files in no order of z
    for k, z in enumerate(zs):
        slice_ds(z, syntax, uid, values, **kw).save_as(os.path.join(folder, prefix + '%04d' % (k * 13 % 97)), write_like_original=False)


for d in ['implicit', 'explicit', 'big', 'bytes', 'wide', 'two', 'jpeg', 'frames']:
    shutil.rmtree(d, ignore_errors=True)


def dcmconv(folder, *options):
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        subprocess.run(['dcmconv', *options, path, path], check=True)


# sequences and items of undefined length, as scanners write them; group
# lengths and an empty slice thickness in the explicit series; big endian
# as DCMTK writes it
series('implicit', ImplicitVRLittleEndian)
dcmconv('implicit', '-e')
series('explicit', ExplicitVRLittleEndian, thickness='')
dcmconv('explicit', '-e', '+g')
series('big', ExplicitVRLittleEndian)
dcmconv('big', '+tb')
series('wide', ExplicitVRLittleEndian, bits=32)
series('bytes', ExplicitVRLittleEndian, values=(ramp + 300) * 255 // (37 * (W * H * D - 1)), signed=False, bits=8)
# two series in one folder
series('two', ExplicitVRLittleEndian)
os.rename('two/IM0000', 'two/first')
series('two', ImplicitVRLittleEndian, shuffle=False, prefix='SE2_')
# compressed, by DCMTK's JPEG lossless encoder
series('jpeg', ExplicitVRLittleEndian, shuffle=False)
for name in os.listdir('jpeg'):
    path = os.path.join('jpeg', name)
    subprocess.run(['dcmcjpeg', '+e1', path, path], check=True)

# one file of four frames, in the order of their place
os.makedirs('frames', exist_ok=True)
multi = slice_ds(0, ExplicitVRLittleEndian, generate_uid(), ramp)
del multi.ImagePositionPatient
multi.NumberOfFrames = D
multi.SpacingBetweenSlices = 2.5
multi.PixelData = b''.join(ramp[z][::-1].astype('<i2').tobytes() for z in range(D))
multi.save_as('frames/multi.dcm', write_like_original=False)

# an enhanced CT image: one file of four frames, its frames last along the
# normal first, placed only by their per-frame functional groups and
# spaced and scaled only by the shared ones, as modern scanners write it;
# its sequences and items of undefined length, and of explicit lengths
for d in ['enhanced', 'enhanced-explicit']:
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
enhanced = slice_ds(0, ExplicitVRLittleEndian, generate_uid(), ramp)
enhanced.SOPClassUID = enhanced.file_meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2.1'  # enhanced CT
for name in ['ImagePositionPatient', 'ImageOrientationPatient', 'PixelSpacing', 'SliceThickness', 'RescaleIntercept', 'RescaleSlope', 'InstanceNumber']:
    delattr(enhanced, name)
enhanced.NumberOfFrames = D
measures, orientation, rescale, shared = Dataset(), Dataset(), Dataset(), Dataset()
measures.PixelSpacing = [0.5, 0.5]
measures.SliceThickness = 2.5
orientation.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
rescale.RescaleIntercept, rescale.RescaleSlope, rescale.RescaleType = -1024, 2, 'HU'
shared.PixelMeasuresSequence = Sequence([measures])
shared.PlaneOrientationSequence = Sequence([orientation])
shared.PixelValueTransformationSequence = Sequence([rescale])
enhanced.SharedFunctionalGroupsSequence = Sequence([shared])
frames = []
for k in range(D):
    z = D - 1 - k
    position, content, frame = Dataset(), Dataset(), Dataset()
    position.ImagePositionPatient = [-10, 20, 100 + 2.5 * z]
    content.InStackPositionNumber = z + 1
    frame.FrameContentSequence = Sequence([content])
    frame.PlanePositionSequence = Sequence([position])
    frames.append(frame)
enhanced.PerFrameFunctionalGroupsSequence = Sequence(frames)
enhanced.PixelData = b''.join(ramp[D - 1 - k][::-1].astype('<i2').tobytes() for k in range(D))
enhanced.save_as('enhanced/reversed.dcm', write_like_original=False)
dcmconv('enhanced', '-e')
subprocess.run(['dcmconv', '+e', 'enhanced/reversed.dcm', 'enhanced-explicit/reversed.dcm'], check=True)

# compressed as PACS hand slices out, each file one series of three
# frames, and the uncompressed files they must load as: lossless JPEG of
# each predictor (DCMTK's dcmcjpeg), in fragments of 1 KB with and without
# a basic offset table, with a point transform, RLE (dcmcrle); 12 bits
# stored of 16, signed; and bytes, in lossless and baseline JPEG and RLE.
# A lossy one's reference is DCMTK's own decompression (dcmdjpeg).
shutil.rmtree('codecs', ignore_errors=True)
os.makedirs('codecs')
CW, CH, CD = 48, 32, 3
yy, xx = np.mgrid[0:CH, 0:CW]
noise = np.random.RandomState(3).randint(-300, 300, size=(CD, CH, CW))
rough = np.clip((40 * xx - 30 * yy)[None, :, :] + 500 * np.arange(CD)[:, None, None] + noise - 1000, -2048, 2047)


def frames_ds(path, values, bits, stored, signed):
    ds = slice_ds(0, ExplicitVRLittleEndian, generate_uid(), values, signed=signed, bits=bits)
    ds.Rows, ds.Columns = CH, CW
    ds.NumberOfFrames = CD
    ds.SpacingBetweenSlices = 2.5
    del ds.ImagePositionPatient
    ds.BitsStored, ds.HighBit = stored, stored - 1
    dtype = '<i2' if signed else ('<u2' if bits == 16 else 'u1')
    ds.PixelData = b''.join(values[z][::-1].astype(dtype).tobytes() for z in range(CD))
    ds.save_as(path, write_like_original=False)


def compress(tool, source, target, *options):
    subprocess.run([tool, *options, source, target], check=True)


frames_ds('codecs/source.dcm', rough, 16, 12, True)
compress('dcmcjpeg', 'codecs/source.dcm', 'codecs/sv1.dcm', '+e1')
for sv in range(2, 8):
    compress('dcmcjpeg', 'codecs/source.dcm', 'codecs/sv%d.dcm' % sv, '+el', '+sv', str(sv))
compress('dcmcjpeg', 'codecs/source.dcm', 'codecs/fragments.dcm', '+e1', '+fs', '1')
compress('dcmcjpeg', 'codecs/source.dcm', 'codecs/unindexed.dcm', '+e1', '+fs', '1', '-ot')
compress('dcmcjpeg', 'codecs/source.dcm', 'codecs/pt2.dcm', '+el', '+sv', '1', '+pt', '2')
compress('dcmdjpeg', 'codecs/pt2.dcm', 'codecs/pt2-reference.dcm')
compress('dcmcrle', 'codecs/source.dcm', 'codecs/rle.dcm')
frames_ds('codecs/bytes.dcm', (rough + 2048) // 16, 8, 8, False)
compress('dcmcjpeg', 'codecs/bytes.dcm', 'codecs/bytes-sv1.dcm', '+e1')
compress('dcmcrle', 'codecs/bytes.dcm', 'codecs/bytes-rle.dcm')
compress('dcmcjpeg', 'codecs/bytes.dcm', 'codecs/bytes-baseline.dcm', '+eb')
compress('dcmdjpeg', 'codecs/bytes-baseline.dcm', 'codecs/bytes-baseline-reference.dcm')
# DCMTK gives a converted file its own series; the pair of each must not
# be one series of two files of frames
for name in os.listdir('codecs'):
    path = os.path.join('codecs', name)
    ds = pydicom.dcmread(path)
    ds.SeriesInstanceUID = generate_uid()
    ds.save_as(path)

# discs as CD and DVD exports hold them: a DICOMDIR (DCMTK's dcmmkdir)
# listing one series, and one listing two, in folders of their own
def disc(folder, serieses):
    shutil.rmtree(folder, ignore_errors=True)
    for k, syntax in enumerate(serieses):
        series(os.path.join(folder, 'DICOM', 'SER%d' % (k + 1)), syntax, shuffle=False)
    for root, _, names in os.walk(os.path.join(folder, 'DICOM')):
        for name in names:
            path = os.path.join(root, name)
            ds = pydicom.dcmread(path)
            ds.PatientName, ds.PatientID = 'Doe^J', 'P1'
            ds.StudyInstanceUID, ds.StudyID = '1.2.826.0.1.3680043.8.498.1', 'S1'
            ds.StudyDate, ds.StudyTime, ds.AccessionNumber = '20260101', '120000', 'A1'
            ds.SeriesNumber = int(root[-1])
            ds.save_as(path)
    subprocess.run(['dcmmkdir', '--recurse', 'DICOM'], cwd=folder, check=True)


disc('disc', [ExplicitVRLittleEndian])
disc('disc2', [ExplicitVRLittleEndian, ExplicitVRLittleEndian])
