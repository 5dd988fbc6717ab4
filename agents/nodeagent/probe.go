package nodeagent

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/capstan-io/capstan/agents/containers"
)

// probeSet is the probing state of one running container.
type probeSet struct {
	started, ready               bool
	startup, liveness, readiness probeState
	killed                       bool
}

type probeState struct {
	last       time.Time
	inflight   bool
	succ, fail int32
}

type probeKind int

const (
	startupProbe probeKind = iota
	livenessProbe
	readinessProbe
)

func (k probeKind) String() string { return [...]string{"Startup", "Liveness", "Readiness"}[k] }

// probe schedules the container's due probes and reports whether it has
// started and is ready, as last observed.
func (a *Agent) probe(ctx context.Context, ps *podState, c corev1.Container, st containers.Status, isInit bool) (started, ready bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	set := ps.probes[st.Spec.ID]
	if set == nil {
		set = &probeSet{started: c.StartupProbe == nil, ready: c.ReadinessProbe == nil}
		ps.probes[st.Spec.ID] = set
	}
	if isInit || a.runtimeName == "fake" {
		return true, true && !isInit
	}
	now := time.Now()
	due := func(p *corev1.Probe, s *probeState) bool {
		if p == nil || s.inflight || set.killed {
			return false
		}
		if now.Sub(st.StartedAt) < time.Duration(p.InitialDelaySeconds)*time.Second {
			return false
		}
		period := time.Duration(max(p.PeriodSeconds, 1)) * time.Second
		if p.PeriodSeconds == 0 {
			period = 10 * time.Second
		}
		return now.Sub(s.last) >= period
	}
	run := func(kind probeKind, p *corev1.Probe, s *probeState) {
		s.inflight, s.last = true, now
		go func() {
			err := a.runProbe(ctx, p, st)
			a.mu.Lock()
			defer a.mu.Unlock()
			s.inflight = false
			a.probeResult(ps, set, kind, p, s, c, st, err)
			a.poke()
		}()
	}
	if !set.started {
		if due(c.StartupProbe, &set.startup) {
			run(startupProbe, c.StartupProbe, &set.startup)
		}
	} else {
		if due(c.LivenessProbe, &set.liveness) {
			run(livenessProbe, c.LivenessProbe, &set.liveness)
		}
		if due(c.ReadinessProbe, &set.readiness) {
			run(readinessProbe, c.ReadinessProbe, &set.readiness)
		}
	}
	return set.started, set.started && set.ready
}

// probeResult records one outcome; a.mu is held.
func (a *Agent) probeResult(ps *podState, set *probeSet, kind probeKind, p *corev1.Probe, s *probeState, c corev1.Container, st containers.Status, err error) {
	succThreshold, failThreshold := max(p.SuccessThreshold, 1), p.FailureThreshold
	if failThreshold == 0 {
		failThreshold = 3
	}
	if err == nil {
		s.succ, s.fail = s.succ+1, 0
		if s.succ >= succThreshold {
			switch kind {
			case startupProbe:
				set.started = true
			case readinessProbe:
				set.ready = true
			}
		}
		return
	}
	s.succ, s.fail = 0, s.fail+1
	a.rec.Event(ps.obj, "Warning", "Unhealthy", fmt.Sprintf("%s probe failed: %v", kind, err))
	if s.fail < failThreshold {
		return
	}
	switch kind {
	case readinessProbe:
		set.ready = false
	case startupProbe, livenessProbe:
		if set.killed {
			return
		}
		set.killed = true
		grace := int64(30)
		if ps.pod.Spec.TerminationGracePeriodSeconds != nil {
			grace = *ps.pod.Spec.TerminationGracePeriodSeconds
		}
		if p.TerminationGracePeriodSeconds != nil {
			grace = *p.TerminationGracePeriodSeconds
		}
		a.rec.Event(ps.obj, "Normal", "Killing", fmt.Sprintf("Container %s failed %s probe, will be restarted", c.Name, strings.ToLower(kind.String())))
		go containers.Stop(context.Background(), a.cfg.Runtime, st.Spec.ID, time.Duration(grace)*time.Second)
	}
}

// runProbe performs one check; nil is success.
func (a *Agent) runProbe(ctx context.Context, p *corev1.Probe, st containers.Status) error {
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case p.Exec != nil:
		if len(p.Exec.Command) == 0 {
			return fmt.Errorf("exec probe without a command")
		}
		cmd := exec.CommandContext(ctx, p.Exec.Command[0], p.Exec.Command[1:]...)
		cmd.Env, cmd.Dir = st.Spec.Env, st.Spec.Dir
		if cmd.Dir == "" {
			cmd.Dir = a.cfg.DataDir
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	case p.HTTPGet != nil:
		g := p.HTTPGet
		port, err := a.probePort(g.Port, st)
		if err != nil {
			return err
		}
		host := g.Host
		if host == "" {
			host = "127.0.0.1"
		}
		scheme := "http"
		if g.Scheme == corev1.URISchemeHTTPS {
			scheme = "https"
		}
		path := g.Path
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+net.JoinHostPort(host, strconv.Itoa(port))+path, nil)
		if err != nil {
			return err
		}
		for _, h := range g.HTTPHeaders {
			req.Header.Set(h.Name, h.Value)
		}
		req.Header.Set("User-Agent", "kube-probe/1.32")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode >= 400 {
			return fmt.Errorf("HTTP probe failed with statuscode: %d", resp.StatusCode)
		}
		return nil
	case p.TCPSocket != nil:
		port, err := a.probePort(p.TCPSocket.Port, st)
		if err != nil {
			return err
		}
		host := p.TCPSocket.Host
		if host == "" {
			host = "127.0.0.1"
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return err
		}
		return conn.Close()
	}
	return fmt.Errorf("probe has no handler (exec, httpGet or tcpSocket)")
}

// probePort resolves a numeric or named port of the container.
func (a *Agent) probePort(p intstr.IntOrString, st containers.Status) (int, error) {
	if p.Type == intstr.Int {
		return p.IntValue(), nil
	}
	a.mu.Lock()
	ps := a.state[st.Spec.Labels[labelPodUID]]
	a.mu.Unlock()
	if ps != nil {
		for _, c := range ps.pod.Spec.Containers {
			if c.Name != st.Spec.Labels[labelContainer] {
				continue
			}
			for _, cp := range c.Ports {
				if cp.Name == p.StrVal {
					return int(cp.ContainerPort), nil
				}
			}
		}
	}
	if n, err := strconv.Atoi(p.StrVal); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("no port named %q", p.StrVal)
}
