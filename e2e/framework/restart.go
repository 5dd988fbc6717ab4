package framework

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Bounce stops the server, waits down, and starts it again in place with the
// same command line (data dir and ports), returning once it is ready. It must
// not run concurrently with the Server's other methods.
func (s *Server) Bounce(down time.Duration) error {
	if err := s.Stop(); err != nil {
		return err
	}
	time.Sleep(down)
	f, err := os.OpenFile(s.LogPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restarting capstan: %w", err)
	}
	exitc := make(chan struct{})
	s.cmd, s.PID, s.exitc, s.waitErr, s.stopErr = cmd, cmd.Process.Pid, exitc, nil, nil
	s.stopOnce = sync.Once{}
	go func() {
		s.waitErr = cmd.Wait()
		close(exitc)
	}()
	return s.waitReady()
}
