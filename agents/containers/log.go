package containers

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sync"
	"time"
)

// defaultMaxLogBytes bounds a container's log; past it the log rotates to LogPath.1.
const defaultMaxLogBytes = 10 << 20

// logWriter writes lines in the CRI log format kubelets use
// (`2016-10-06T00:17:09.669794202Z stdout F text`) to a size-bounded file.
type logWriter struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	size int64
}

func newLogWriter(path string, max int64) (*logWriter, error) {
	l := &logWriter{path: path, max: max}
	return l, l.open()
}

func (l *logWriter) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.w, l.size = f, bufio.NewWriter(f), fi.Size()
	return nil
}

// line writes one log line and flushes it, rotating first if the file is full.
func (l *logWriter) line(stream string, text []byte, partial bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size >= l.max {
		l.w.Flush()
		l.f.Close()
		os.Rename(l.path, l.path+".1")
		if l.open() != nil {
			return
		}
	}
	tag := " F "
	if partial {
		tag = " P "
	}
	n, _ := l.w.WriteString(time.Now().UTC().Format(time.RFC3339Nano) + " " + stream + tag)
	m, _ := l.w.Write(text)
	l.w.WriteByte('\n')
	l.w.Flush()
	l.size += int64(n + m + 1)
}

func (l *logWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Flush()
	return l.f.Close()
}

// stream returns a writer that splits one output stream into lines.
func (l *logWriter) stream(name string) *streamWriter { return &streamWriter{log: l, name: name} }

// streamWriter buffers a partial line until its newline arrives. Each is used
// by one goroutine (os/exec copies each stream in its own).
type streamWriter struct {
	log  *logWriter
	name string
	buf  []byte
}

const maxLine = 16 << 10 // longer lines are split, marked partial

func (s *streamWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.buf = append(s.buf, p...)
			for len(s.buf) >= maxLine {
				s.log.line(s.name, s.buf[:maxLine], true)
				s.buf = append(s.buf[:0], s.buf[maxLine:]...)
			}
			break
		}
		s.log.line(s.name, append(s.buf, p[:i]...), false)
		s.buf, p = s.buf[:0], p[i+1:]
	}
	return n, nil
}

// flush writes a final line that never got its newline.
func (s *streamWriter) flush() {
	if len(s.buf) > 0 {
		s.log.line(s.name, s.buf, false)
		s.buf = nil
	}
}

// pipe is one output stream: the container holds w, the shim drains r into the log.
type pipe struct {
	r, w *os.File
	out  *streamWriter
}

// pipes are a container's stdout and stderr, drained by two goroutines the shim owns.
type pipes struct {
	stdout, stderr pipe
	wg             sync.WaitGroup
}

func newPipes(l *logWriter) (*pipes, error) {
	p := &pipes{}
	for _, s := range []struct {
		p    *pipe
		name string
	}{{&p.stdout, "stdout"}, {&p.stderr, "stderr"}} {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		*s.p = pipe{r: r, w: w, out: l.stream(s.name)}
	}
	for _, pp := range []*pipe{&p.stdout, &p.stderr} {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			io.Copy(pp.out, pp.r)
			pp.out.flush()
		}()
	}
	return p, nil
}

// closeWriters drops the shim's copies of the write ends once the child has its own.
func (p *pipes) closeWriters() {
	p.stdout.w.Close()
	p.stderr.w.Close()
}

// wait returns once both streams are drained, or after a grace period if
// something outside the container still holds them open.
func (p *pipes) wait() {
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		p.stdout.r.Close()
		p.stderr.r.Close()
		<-done
	}
}
