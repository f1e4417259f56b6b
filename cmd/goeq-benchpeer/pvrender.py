# Renders a PLY model with ParaView for goeq-benchpeer: pvbatch runs this
# on rank 0 only (the other ranks serve it), so there is no MPI call here.
# With more than one rank the cells are spread over the ranks
# (RedistributeDataSet) and IceT composites sort-last with depth.
#
# The camera is eqply's orbit: yaw turns once around the model over the
# timed frames, pitch and distance are eqply's home camera, and the
# vertical field of view is that of the config's wall.
import json
import math
import os
import sys
import time

from paraview import servermanager
from paraview.simple import (CreateRenderView, PLYReader, RedistributeDataSet, Render, SaveScreenshot, Show)

args = dict(a.split("=", 1) for a in sys.argv[1:])
model, frames, warmup = args["model"], int(args["frames"]), int(args["warmup"])
width, height = int(args["width"]), int(args["height"])
pitch, distance, fov = float(args["pitch"]), float(args["distance"]), float(args["fov"])

ranks = servermanager.ActiveConnection.GetNumberOfDataPartitions()
source = PLYReader(FileNames=[model])
if ranks > 1:
    source = RedistributeDataSet(Input=source)
view = CreateRenderView()
view.ViewSize = [width, height]
view.OrientationAxesVisibility = 0
view.CameraParallelProjection = 0
view.CameraViewAngle = fov
Show(source, view)


def cpu():
    """The machine's busy and total jiffies."""
    with open("/proc/stat") as f:
        v = [float(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - v[4], sum(v)


def place(yaw):
    cp, sp = math.cos(pitch), math.sin(pitch)
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraPosition = [-distance * cp * math.sin(yaw), distance * sp, distance * cp * math.cos(yaw)]
    view.CameraViewUp = [sp * math.sin(yaw), cp, -sp * math.cos(yaw)]
    view.CameraViewAngle = fov


start = time.time()
Render(view)  # reads and spreads the model, builds the GL buffers, resets the camera
first = time.time() - start
place(0)
if args.get("image"):
    SaveScreenshot(args["image"], view, ImageResolution=[width, height])
for i in range(warmup):
    place(-2 * math.pi * (warmup - i) / frames)
    Render(view)
busy0, total0 = cpu()
start = time.time()
for i in range(frames):
    place(2 * math.pi * i / frames)
    Render(view)
elapsed = time.time() - start
busy1, total1 = cpu()
cores = (busy1 - busy0) / (total1 - total0) * os.cpu_count()
print(json.dumps({"ranks": ranks, "frames": frames, "ms_per_frame": 1000 * elapsed / frames,
                  "first_frame_ms": 1000 * first, "cores_busy": cores}), flush=True)
