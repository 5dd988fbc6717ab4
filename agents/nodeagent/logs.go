package nodeagent

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/apiserver/api"
)

// logServer starts the HTTPS server the hub proxies pods/log to. Its
// certificate is self-signed (kept in the data dir); clients must present
// the hub's certificate (CN api.NodeProxyUser) from the cluster CA.
func (a *Agent) logServer() (*http.Server, error) {
	cert, err := a.servingCert()
	if err != nil {
		return nil, err
	}
	tcfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, ClientAuth: tls.RequireAndVerifyClientCert}
	pool := x509.NewCertPool()
	if len(a.cfg.ClientCA) == 0 || !pool.AppendCertsFromPEM(a.cfg.ClientCA) {
		a.log.Warn("no cluster CA: container logs will not be served")
		tcfg.ClientAuth = tls.RequireAnyClientCert
	}
	tcfg.ClientCAs = pool
	ln, err := net.Listen("tcp", a.cfg.ListenAddress)
	if err != nil {
		return nil, fmt.Errorf("nodeagent: log server: %w", err)
	}
	a.port = ln.Addr().(*net.TCPAddr).Port
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", a.serveLogs)
	srv := &http.Server{Handler: a.authorize(mux), TLSConfig: tcfg, ReadHeaderTimeout: 10 * time.Second}
	go srv.ServeTLS(ln, "", "")
	return srv, nil
}

func (a *Agent) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || r.TLS.VerifiedChains[0][0].Subject.CommonName != api.NodeProxyUser {
			http.Error(w, "only the hub may read container logs", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// servingCert loads or creates the agent's self-signed certificate.
func (a *Agent) servingCert() (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(a.cfg.DataDir, "agent.crt"), filepath.Join(a.cfg.DataDir, "agent.key")
	if c, err := tls.LoadX509KeyPair(certPath, keyPath); err == nil && c.Leaf != nil && time.Now().Before(c.Leaf.NotAfter.Add(-24*time.Hour)) {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: a.cfg.NodeName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{a.cfg.NodeName, "localhost"},
	}
	if ip := net.ParseIP(a.cfg.Address); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// logLine is one parsed CRI log line.
type logLine struct {
	ts      time.Time
	raw     string // the timestamp as written
	text    string
	partial bool
}

func parseLogLine(s string) (logLine, bool) {
	ts, rest, ok := strings.Cut(s, " ")
	if !ok {
		return logLine{}, false
	}
	_, rest, ok = strings.Cut(rest, " ") // stream
	if !ok {
		return logLine{}, false
	}
	tag, text, _ := strings.Cut(rest, " ")
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return logLine{}, false
	}
	return logLine{ts: t, raw: ts, text: text, partial: tag == "P"}, true
}

// logOptions are the query parameters of a log request.
type logOptions struct {
	follow, timestamps bool
	tail               int // -1: all
	since              time.Time
	limit              int64
}

func (o logOptions) write(w io.Writer, l logLine, lineStart bool) {
	if o.timestamps && lineStart {
		io.WriteString(w, l.raw+" ")
	}
	io.WriteString(w, l.text)
	if !l.partial {
		io.WriteString(w, "\n")
	}
}

func (a *Agent) serveLogs(w http.ResponseWriter, r *http.Request) {
	ns, podName, cname := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	q := r.URL.Query()
	opt := logOptions{follow: q.Get("follow") == "true", timestamps: q.Get("timestamps") == "true", tail: -1}
	if v := q.Get("tailLines"); v != "" {
		opt.tail, _ = strconv.Atoi(v)
	}
	if v := q.Get("sinceSeconds"); v != "" {
		n, _ := strconv.Atoi(v)
		opt.since = time.Now().Add(-time.Duration(n) * time.Second)
	}
	if v := q.Get("sinceTime"); v != "" {
		opt.since, _ = time.Parse(time.RFC3339, v)
	}
	if v := q.Get("limitBytes"); v != "" {
		opt.limit, _ = strconv.ParseInt(v, 10, 64)
	}
	list, err := a.cfg.Runtime.List(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var attempts []containers.Status
	for _, c := range list {
		l := c.Spec.Labels
		if l[labelNamespace] == ns && l[labelPodName] == podName && l[labelContainer] == cname {
			attempts = append(attempts, c)
		}
	}
	sort.Slice(attempts, func(i, j int) bool { return attemptOf(attempts[i]) < attemptOf(attempts[j]) })
	idx := len(attempts) - 1
	if q.Get("previous") == "true" {
		idx--
		opt.follow = false
	}
	if idx < 0 {
		what := "container"
		if q.Get("previous") == "true" {
			what = "previous terminated container"
		}
		http.Error(w, fmt.Sprintf("%s %q in pod %q is not available", what, cname, podName), http.StatusNotFound)
		return
	}
	c := attempts[idx]
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var out io.Writer = w
	if opt.limit > 0 {
		out = &limitWriter{w: w, n: opt.limit}
	}
	// What is in the files now, with tailLines and since applied.
	var lines []logLine
	for _, p := range []string{c.Spec.LogPath + ".1", c.Spec.LogPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, s := range strings.Split(string(b), "\n") {
			if l, ok := parseLogLine(s); ok && !l.ts.Before(opt.since) {
				lines = append(lines, l)
			}
		}
	}
	if opt.tail >= 0 {
		start, full := len(lines), 0
		for start > 0 {
			if !lines[start-1].partial {
				if full == opt.tail {
					break
				}
				full++
			}
			start--
		}
		lines = lines[start:]
	}
	lineStart := true
	for _, l := range lines {
		opt.write(out, l, lineStart)
		lineStart = !l.partial
	}
	if !opt.follow {
		return
	}
	rc := http.NewResponseController(w)
	rc.Flush()
	a.followLog(r, out, rc, c, opt, lineStart)
}

// followLog streams lines appended to the container's log until it exits
// or the client goes away.
func (a *Agent) followLog(r *http.Request, w io.Writer, rc *http.ResponseController, c containers.Status, opt logOptions, lineStart bool) {
	f, err := os.Open(c.Spec.LogPath)
	if err != nil {
		return
	}
	defer func() { f.Close() }()
	off, _ := f.Seek(0, io.SeekEnd)
	var pending []byte
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if fi, err := os.Stat(c.Spec.LogPath); err == nil && fi.Size() < off {
			f.Close() // rotated: the new file starts over
			if f, err = os.Open(c.Spec.LogPath); err != nil {
				return
			}
			off = 0
		}
		buf := make([]byte, 64<<10)
		for {
			n, _ := f.Read(buf)
			if n == 0 {
				break
			}
			off += int64(n)
			pending = append(pending, buf[:n]...)
		}
		consumed := 0
		for {
			i := bytes.IndexByte(pending[consumed:], '\n')
			if i < 0 {
				break
			}
			if l, ok := parseLogLine(string(pending[consumed : consumed+i])); ok {
				opt.write(w, l, lineStart)
				lineStart = !l.partial
			}
			consumed += i + 1
		}
		pending = pending[consumed:]
		if consumed > 0 {
			if rc.Flush() != nil {
				return
			}
		}
		if lw, ok := w.(*limitWriter); ok && lw.n <= 0 {
			return
		}
		st, err := a.cfg.Runtime.Status(r.Context(), c.Spec.ID)
		if err != nil || st.State != containers.StateRunning {
			if consumed == 0 {
				return
			}
			continue
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// limitWriter stops writing after n bytes (limitBytes).
type limitWriter struct {
	w io.Writer
	n int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return len(p), nil
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}
