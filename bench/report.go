package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Results is everything one run measured; it is also the --json output.
type Results struct {
	GoVersion   string `json:"goVersion"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	NumCPU      int    `json:"numCPU"`
	Fsync       bool   `json:"fsync"`
	Protocol    string `json:"protocol"`
	FileLimit   uint64 `json:"fileLimit"`
	N           int    `json:"n"`
	Concurrency int    `json:"concurrency"`
	PostedBytes int    `json:"postedBytes"` // a created ConfigMap's request body
	StoredBytes int    `json:"storedBytes"` // the same object read back; the etcd baseline's value size

	ServerReady time.Duration  `json:"serverReadyNs"` // exec to /readyz 200 for the server on external etcd
	EtcdPut     *LoadSummary   `json:"etcdPut,omitempty"`
	Verbs       []*LoadSummary `json:"verbs,omitempty"`
	Watch       []*WatchResult `json:"watch,omitempty"`
	RSSIdleMiB  float64        `json:"rssIdleMiB"`
	RSSAfterMiB float64        `json:"rssAfterMiB"`
	RSSPeakMiB  float64        `json:"rssPeakMiB"` // VmHWM at the end of the load
	Startup     *Startup       `json:"startup,omitempty"`

	ServerStopGraceful bool     `json:"serverStopGraceful"`
	ServerLog          []string `json:"serverLog,omitempty"` // the server's warn+ log lines, the first few
	ServerLogLines     int      `json:"serverLogLines"`
	Notes              []string `json:"notes,omitempty"`
}

// LoadSummary is a Load reduced for the report.
type LoadSummary struct {
	Name    string         `json:"name"`
	Ops     int            `json:"ops"`
	OK      int            `json:"ok"`
	Errors  map[string]int `json:"errors,omitempty"`
	Elapsed time.Duration  `json:"elapsedNs"`
	PerSec  float64        `json:"perSec"`
	P50     time.Duration  `json:"p50Ns"`
	P99     time.Duration  `json:"p99Ns"`
	Ratio   float64        `json:"ratioToEtcdPut"` // PerSec over etcd Put's; 0 when not comparable
	// ServerCores and BenchCores are CPU use during the run, in cores: the API server's,
	// and this process's, which includes the client and the benchmark's etcd.
	ServerCores float64 `json:"serverCores"`
	BenchCores  float64 `json:"benchCores"`
}

func summarize(name string, l *Load, etcdPut float64) *LoadSummary {
	s := &LoadSummary{Name: name, Ops: l.Ops, OK: l.OK, Elapsed: l.Elapsed, PerSec: l.PerSec(),
		P50: l.Quantile(0.50), P99: l.Quantile(0.99)}
	if len(l.Errors) > 0 {
		s.Errors = l.Errors
	}
	if etcdPut > 0 {
		s.Ratio = s.PerSec / etcdPut
	}
	return s
}

// WriteMarkdown prints the run as a header and one table: metric | value | ratio to etcd put.
func (r *Results) WriteMarkdown(w io.Writer) {
	fsync := "on"
	if !r.Fsync {
		fsync = "OFF (--unsafe-no-fsync)"
	}
	fmt.Fprintf(w, "## Capstan bench\n\n")
	fmt.Fprintf(w, "%s, GOMAXPROCS=%d (%d CPUs), etcd fsync %s, %s to the API, n=%d, concurrency=%d, ConfigMap %d B posted / %d B stored, RLIMIT_NOFILE %d\n\n",
		r.GoVersion, r.GOMAXPROCS, r.NumCPU, fsync, r.Protocol, r.N, r.Concurrency, r.PostedBytes, r.StoredBytes, r.FileLimit)
	fmt.Fprintf(w, "| metric | value | ratio to etcd put |\n|---|---|---|\n")
	row := func(metric, value, ratio string) { fmt.Fprintf(w, "| %s | %s | %s |\n", metric, value, ratio) }
	load := func(prefix string, s *LoadSummary) {
		v := fmt.Sprintf("%.0f ops/s · p50 %s · p99 %s · CPU server %.2f, bench+etcd %.2f", s.PerSec, ms(s.P50), ms(s.P99), s.ServerCores, s.BenchCores)
		if s.Ops != s.OK {
			v += fmt.Sprintf(" · **%d/%d failed: %s**", s.Ops-s.OK, s.Ops, formatErrors(s.Errors))
		}
		ratio := fmt.Sprintf("%.2fx etcd put", s.Ratio)
		if s.Ratio < 0.1 {
			ratio = fmt.Sprintf("%.3fx etcd put", s.Ratio)
		}
		row(prefix+s.Name, v, ratio)
	}
	if r.EtcdPut != nil {
		load("", r.EtcdPut)
	}
	for _, s := range r.Verbs {
		load("API ", s)
	}
	for _, x := range r.Watch {
		p := fmt.Sprintf("watch ×%d", x.Watchers)
		open := fmt.Sprintf("%d/%d streams open in %s · server RSS %.1f MiB while open", x.Opened, x.Watchers, ms(x.OpenTime), x.RSSOpenMiB)
		if len(x.OpenErrors) > 0 {
			open += " · **failed: " + formatErrors(x.OpenErrors) + "**"
		}
		row(p+": open", open, "")
		writes := fmt.Sprintf("%d writes paced %s apart, done in %s · write p50 %s · p99 %s",
			x.Writes-sum(x.WriteErrors), x.Interval, ms(x.WriteSpan), ms(x.WriteP50), ms(x.WriteP99))
		if len(x.WriteErrors) > 0 {
			writes += " · **failed: " + formatErrors(x.WriteErrors) + "**"
		}
		row(p+": writes", writes, "")
		missing := fmt.Sprintf("missing %d", x.Missing)
		if x.Missing != 0 {
			missing = "**" + missing + "**"
		}
		deliv := fmt.Sprintf("%.0f events/s · %d/%d delivered · %s", x.EventsPerSec, x.Delivered, x.Expected, missing)
		if x.Duplicates+x.OutOfOrder > 0 {
			deliv += fmt.Sprintf(" · **%d duplicate, %d out of order**", x.Duplicates, x.OutOfOrder)
		}
		if len(x.StreamErrors) > 0 {
			deliv += " · **streams ended early: " + formatErrors(x.StreamErrors) + "**"
		}
		row(p+": delivered", deliv, "")
		row(p+": delivery delay", fmt.Sprintf("p50 %s · p99 %s · max %s · CPU server %.2f, bench+etcd %.2f",
			ms(x.DelayP50), ms(x.DelayP99), ms(x.DelayMax), x.ServerCores, x.BenchCores), "")
	}
	if r.RSSIdleMiB > 0 {
		row("server RSS idle", fmt.Sprintf("%.1f MiB", r.RSSIdleMiB), "")
	}
	if r.RSSAfterMiB > 0 {
		row("server RSS after load", fmt.Sprintf("%.1f MiB (peak %.1f MiB)", r.RSSAfterMiB, r.RSSPeakMiB), "")
	}
	if r.ServerReady > 0 {
		row("server ready, external etcd", ms(r.ServerReady), "")
	}
	if s := r.Startup; s != nil {
		// capstan server has no flag to turn off its embedded etcd's fsync.
		row("startup, embedded etcd, first (generates certs)", "median "+ms(s.First)+" of "+msList(s.FirstRuns), "")
		row("startup, embedded etcd, restart", "median "+ms(s.Restart)+" of "+msList(s.RestartRuns), "")
	}

	fmt.Fprintf(w, "\nServer on external etcd: warn+ log lines: %d; stopped on SIGTERM: %v.\n", r.ServerLogLines, r.ServerStopGraceful)
	printLog(w, r.ServerLog, r.ServerLogLines)
	if s := r.Startup; s != nil {
		fmt.Fprintf(w, "Startup servers: warn+ log lines: %d; %d of %d stopped on SIGTERM.\n", s.LogLines, s.GracefulStops, s.Stops)
		printLog(w, s.Log, s.LogLines)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
}

func printLog(w io.Writer, lines []string, total int) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n```\n%s\n", strings.Join(lines, "\n"))
	if total > len(lines) {
		fmt.Fprintf(w, "… %d more\n", total-len(lines))
	}
	fmt.Fprintf(w, "```\n\n")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// ms formats a duration in milliseconds with sensible precision.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f ms", f)
	case f >= 10:
		return fmt.Sprintf("%.1f ms", f)
	default:
		return fmt.Sprintf("%.2f ms", f)
	}
}

func msList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond))
	}
	return strings.Join(parts, ", ") + " ms"
}
