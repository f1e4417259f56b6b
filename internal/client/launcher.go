package client

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// EndWithLauncher has the kernel kill this process when the process that
// started it ends: for a launched client, eqserver (a local launch), or
// ssh's session on the node's host, srun's or mpirun's daemon. The
// server ends its launchers when a run ends or a node is dropped, but a
// client stopped on a remote host (SIGSTOP, a debugger) could take no
// signal but SIGKILL and was left there for ever; this one reaches it.
// It fails when the launcher is gone already.
func EndWithLauncher() error {
	errc := make(chan error, 1)
	go func() {
		// the setting belongs to a thread, and a child's death signal
		// comes while any of its threads has one: this thread lives as
		// long as the process
		runtime.LockOSThread()
		launcher := os.Getppid()
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); e != 0 {
			errc <- e
			return
		}
		if p := os.Getppid(); p != launcher || p == 1 {
			errc <- errors.New("the process that launched this client has ended")
			return
		}
		errc <- nil
		select {}
	}()
	return <-errc
}
