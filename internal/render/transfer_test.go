package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A colour map preset as ParaView exports one becomes a transfer
// function: its x run spread over the values 0 to 255, colours and
// opacities interpolated between its points, the default opacities where
// it gives none. What is no preset is refused, saying why.
func TestAParaViewPresetIsATransferFunction(t *testing.T) {
	// ParaView's export: a list of presets, x in the data's units
	const blueWhiteRed = `[
	{
		"ColorSpace" : "RGB",
		"Name" : "Blue White Red",
		"NanColor" : [ 1, 1, 0 ],
		"RGBPoints" : [ -100, 0, 0, 1, 0, 1, 1, 1, 100, 1, 0, 0 ],
		"Points" : [ -100, 0, 0.5, 0, 100, 1, 0.5, 0 ]
	}
]`
	tf, err := ReadParaViewTransfer(strings.NewReader(blueWhiteRed))
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[int][4]uint8{0: {0, 0, 255, 0}, 255: {255, 0, 0, 255}, 64: {128, 128, 255, 64}, 191: {255, 129, 129, 191}} {
		if got := tf[v]; absDiff(got, want) > 1 {
			t.Errorf("value %d: %v; want %v", v, got, want)
		}
	}
	// one preset, not a list, without opacities: the default's
	one, err := ReadParaViewTransfer(strings.NewReader(`{"Name": "grey", "RGBPoints": [0, 0, 0, 0, 1, 1, 1, 1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if defaults := DefaultTransfer(); one != defaults {
		t.Errorf("a grey ramp without opacities: %v...; want the default's %v...", one[200], defaults[200])
	}
	for text, want := range map[string]string{
		`{"Name": "none"}`:            "RGBPoints holds 0 numbers",
		`[]`:                          "a list of no colour map presets",
		`{"RGBPoints": [0, 0, 0]}`:    "RGBPoints holds 3 numbers",
		`{"RGBPoints": [0, 0, 0, 2]}`: "RGBPoints point 0: [0 0 0 2]; want a number x, then values from 0 to 1",
		`{"RGBPoints": [1, 0, 0, 0, 0, 1, 1, 1]}`:                 "RGBPoints point 1: x 0 comes before the point before it",
		`{"RGBPoints": [0, 0, 0, 0], "Points": [0, 1.5, 0.5, 0]}`: "Points point 0",
		`<colormap/>`: "XML <colormap> holds no ColorMap",
		`{"RGBPoints": [0, 0, 0, 0, 1, 1, 1, 1], "HSVWrap": "yes"}`: `HSVWrap "yes": want 0 or 1`,
	} {
		if _, err := ReadParaViewTransfer(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", text, err, want)
		}
	}
}

// absDiff is the largest difference between two colours' components.
func absDiff(a, b [4]uint8) int {
	d := 0
	for i := range a {
		d = max(d, int(a[i])-int(b[i]), int(b[i])-int(a[i]))
	}
	return d
}

// Colour map presets blend in the colour space they name, and their
// opacities take their points' midpoints and sharpnesses, as VTK (and so
// ParaView) blends them: each preset in testdata/colormaps is compared
// with the table VTK 9.1 made of it (make.py there).
func TestColourMapsBlendAsVTKDoes(t *testing.T) {
	presets, err := filepath.Glob("testdata/colormaps/*.vtk.json")
	if err != nil || len(presets) < 10 {
		t.Fatalf("%d VTK tables (%v)", len(presets), err)
	}
	xmls := 0
	for _, vtkTable := range presets {
		b, err := os.ReadFile(vtkTable)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]float64
		if err := json.Unmarshal(b, &want); err != nil || len(want) != 256 {
			t.Fatalf("%s: %d rows (%v)", vtkTable, len(want), err)
		}
		name := strings.TrimSuffix(vtkTable, ".vtk.json")
		for _, file := range []string{name + ".json", name + ".xml"} {
			f, err := os.Open(file)
			if errors.Is(err, fs.ErrNotExist) && strings.HasSuffix(file, ".xml") {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			xmls += strings.Count(file, ".xml")
			tf, err := ReadParaViewTransfer(f)
			f.Close()
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			worst, at := 0, 0
			for v, row := range want {
				for c, x := range row {
					if d := int(tf[v][c]) - int(unit(x)); max(d, -d) > worst {
						worst, at = max(d, -d), v
					}
				}
			}
			if worst > 1 {
				t.Errorf("%s: value %d is %v; VTK's %v", file, at, tf[at], want[at])
			}
		}
	}
	if xmls < 5 {
		t.Errorf("%d XML colour maps", xmls)
	}
	// saved with a byte order mark, as Windows editors save files
	for _, file := range []string{"lab.json", "lab.xml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "colormaps", file))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := ReadParaViewTransfer(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if marked, err := ReadParaViewTransfer(bytes.NewReader(append([]byte("\ufeff"), b...))); err != nil || marked != plain {
			t.Errorf("%s with a byte order mark: %v", file, err)
		}
	}
	// a midpoint at a point: the value there is still the point's
	ends, err := ReadParaViewTransfer(strings.NewReader(`{"RGBPoints": [0, 0, 0, 0, 1, 1, 1, 1], "Points": [0, 0, 1, 0, 1, 1, 0, 0]}`))
	if err != nil || ends[0][3] != 0 || ends[255][3] != 255 {
		t.Errorf("midpoints 1 and 0: opacities %d and %d (%v); want 0 and 255", ends[0][3], ends[255][3], err)
	}
	// what VTK does not blend as goeq can is refused, saying so
	for space, want := range map[string]string{
		"Lab/CIEDE2000": `ColorSpace "Lab/CIEDE2000": goeq blends colour maps in RGB, HSV, Lab, Diverging or Step`,
		"lab":           `ColorSpace "lab": not one of ParaView's`,
	} {
		_, err := ReadParaViewTransfer(strings.NewReader(`{"ColorSpace": "` + space + `", "RGBPoints": [0, 0, 0, 0, 1, 1, 1, 1]}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", space, err, want)
		}
	}
	for text, want := range map[string]string{
		`<ColorMap name="c" indexedLookup="true"><Point r="1" g="0" b="0"/></ColorMap>`: `colour map "c" is categorical`,
		`<ColorMap name="c"><Point x="0" r="1" g="0"/></ColorMap>`:                      `colour map "c": Point 0 lacks x, r, g or b`,
		`<ColorMap name="c" space="Diverging"></ColorMap>`:                              "RGBPoints holds 0 numbers",
		`<ColorMap name="c" space="CIELAB"><Point x="0" r="1" g="0" b="0"/></ColorMap>`: `ColorSpace "CIELAB": not one of ParaView's`,
		`<ColorMaps></ColorMaps>`:                   "XML <ColorMaps> holds no ColorMap",
		`<ColorMap><Point x="0" r="1" g="0" b="0">`: "not a ParaView colour map (XML with a ColorMap): XML syntax error",
	} {
		if _, err := ReadParaViewTransfer(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", text, err, want)
		}
	}
}
