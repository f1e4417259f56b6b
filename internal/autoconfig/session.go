package autoconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// IsSession reports whether a config name is an auto-configuration's
// session, as Equalizer takes an --eq-config that is not a .eqc file
// (eqPly --eq-config local): no such file, and not named .eqc.
func IsSession(name string) bool {
	if strings.HasSuffix(name, ".eqc") {
		return false
	}
	_, err := os.Stat(name)
	return errors.Is(err, fs.ErrNotExist)
}

// Here is the machine of the GPUs devices (the pipes' devices, as
// winsys.GPUs finds them), named name, with the window size the
// environment asks for as Equalizer's does (EQ_WINDOW_IATTR_HINT_WIDTH
// and _HEIGHT).
func Here(name string, devices []int) Machine {
	m := Machine{Name: name}
	for i, hint := range []string{"EQ_WINDOW_IATTR_HINT_WIDTH", "EQ_WINDOW_IATTR_HINT_HEIGHT"} {
		m.Size[i], _ = strconv.Atoi(os.Getenv(hint))
	}
	for _, d := range devices {
		m.GPUs = append(m.GPUs, GPU{Device: d})
	}
	return m
}

// Save writes m's config (Text) to <m.Name>.auto.eqc in the working
// directory, as Equalizer's server saves the config it makes, to edit
// and pass back (use says how: "with --eq-config"). A file of that name
// that says something else is left as it is. name is what the run calls
// its config: the file, or "auto-configuration" where no file holds it;
// how says what became of the file and what the machine gave, for the
// log.
func Save(m Machine, use string) (name, text, how string) {
	text = Text(m)
	file := m.Name + ".auto.eqc"
	name, saved := file, "written to "+file+": edit it and pass it "+use
	switch old, err := os.ReadFile(file); {
	case err == nil && string(old) == text:
		saved = "as in " + file
	case err == nil:
		name, saved = "auto-configuration", file+" is left as it is: it says something else (pass it "+use+" to use it)"
	case !errors.Is(err, fs.ErrNotExist):
		name, saved = "auto-configuration", fmt.Sprintf("not written (%v)", err)
	default:
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			name, saved = "auto-configuration", fmt.Sprintf("not written (%v)", err)
		}
	}
	found, layouts := "no GPU found, one pipe where goeq renders by default", Simple
	switch n := len(m.GPUs); {
	case n == 1:
		found = "one GPU"
	case n > 1:
		found, layouts = fmt.Sprintf("%d GPUs, a pipe each", n), strings.Join(Layouts, ", ")
	}
	return name, text, fmt.Sprintf("auto-configured for this machine (%s), layouts %s; %s", found, layouts, saved)
}
