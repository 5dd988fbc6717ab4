package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// Bench is one benchmark run.
type Bench struct {
	cfg Config
	res *Results
}

// New returns a Bench for cfg; Run performs it.
func New(cfg Config) *Bench { return &Bench{cfg: cfg} }

// readyTimeout bounds how long the server under test may take to become ready.
const readyTimeout = 30 * time.Second

// Run performs every measurement in order. It returns the results gathered so far
// even on error, and returns only after every process and goroutine it started ended.
func (b *Bench) Run(ctx context.Context) (*Results, error) {
	b.res = &Results{
		GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(),
		Fsync: !b.cfg.UnsafeNoFsync, N: b.cfg.N, Concurrency: b.cfg.Concurrency,
	}
	if lim, err := raiseFileLimit(); err != nil {
		b.note("could not raise RLIMIT_NOFILE: %v", err)
	} else {
		b.res.FileLimit = lim
	}
	tmp, err := os.MkdirTemp("", "capstan-bench-")
	if err != nil {
		return b.res, err
	}
	defer os.RemoveAll(tmp)

	bin, err := buildCapstan(ctx, tmp)
	if err != nil {
		return b.res, err
	}
	if err := b.runAgainstEtcd(ctx, tmp, bin); err != nil {
		return b.res, err
	}
	if b.cfg.StartupRuns > 0 {
		st, err := measureStartup(ctx, bin, tmp, b.cfg.StartupRuns)
		b.res.Startup = st
		if err != nil {
			return b.res, fmt.Errorf("measuring startup: %w", err)
		}
	}
	return b.res, nil
}

// runAgainstEtcd starts the benchmark's etcd and a server on it, and measures
// the baseline, the REST verbs, watch fan-out and memory. Both are stopped on return.
func (b *Bench) runAgainstEtcd(ctx context.Context, tmp, bin string) (err error) {
	etcd, err := startEtcd(tmp, b.cfg.UnsafeNoFsync)
	if err != nil {
		return err
	}
	defer etcd.Close()
	cli, err := etcd.Client()
	if err != nil {
		return fmt.Errorf("connecting to etcd: %w", err)
	}
	defer cli.Close()

	srv, err := startServer(bin, filepath.Join(tmp, "server"), "--etcd-servers", etcd.Endpoint)
	if err != nil {
		return err
	}
	defer func() {
		b.res.ServerStopGraceful = srv.stop()
		b.res.ServerLog, b.res.ServerLogLines = srv.logLines(20)
		switch {
		case !b.res.ServerStopGraceful:
			b.note("server did not exit within %v of SIGTERM, or had exited already (%v)", stopGrace, srv.err)
		case srv.err != nil:
			b.note("server exited with %v after SIGTERM", srv.err)
		}
	}()
	if b.res.ServerReady, err = waitReady(ctx, srv, startupPoll, readyTimeout); err != nil {
		return err
	}
	api, err := newAPIClient(srv.url, srv.dataDir, b.cfg.Concurrency, b.cfg.HTTP1)
	if err != nil {
		return err
	}
	defer api.close()
	b.res.Protocol = api.protocol(ctx)
	select { // let start-up settle before the idle reading
	case <-time.After(500 * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	b.res.RSSIdleMiB, _, _ = rssMiB(srv.pid())

	if err := api.ensureNamespace(ctx, benchNamespace); err != nil {
		return err
	}
	if b.res.PostedBytes, b.res.StoredBytes, err = storedSize(ctx, api); err != nil {
		return err
	}

	mt := meter{pid: srv.pid(), conc: b.cfg.Concurrency}
	put := etcdPut(cli, b.res.StoredBytes)
	runOps(ctx, min(b.cfg.N/10, 300), b.cfg.Concurrency, put) // warm-up: connections, first allocations
	putName := fmt.Sprintf("etcd put (%d B)", b.res.StoredBytes)
	var base float64 // etcd Put ops/s, once measured
	err = runVerbs(ctx, api, b.cfg.N, b.cfg.Verbs, func(name string, ops int, op opFunc) {
		stopProfile := profileServer(ctx, api, b.cfg.ProfileDir, name, b.cfg.ProfileFor)
		defer stopProfile()
		var m measured
		if b.res.EtcdPut == nil {
			// The first verb (create) is measured in turns with the baseline.
			var pm measured
			pm, m = mt.inTurns(ctx, ops, b.cfg.Turns, put, op)
			b.res.EtcdPut = pm.summary(putName, 0)
			base, b.res.EtcdPut.Ratio = b.res.EtcdPut.PerSec, 1
		} else {
			mt.run(ctx, &m, ops, 0, op)
		}
		b.res.Verbs = append(b.res.Verbs, m.summary(name, base))
	})
	if err != nil {
		return err
	}

	for round, w := range b.cfg.Watchers {
		wc, err := newAPIClient(srv.url, srv.dataDir, w, b.cfg.HTTP1)
		if err != nil {
			return err
		}
		wr, err := runWatch(ctx, api, wc, srv.pid(), round+1, w, b.cfg.Events, b.cfg.EventInterval)
		wc.close()
		if wr != nil {
			b.res.Watch = append(b.res.Watch, wr)
		}
		if err != nil {
			return fmt.Errorf("watch round with %d watchers: %w", w, err)
		}
	}
	b.res.RSSAfterMiB, b.res.RSSPeakMiB, _ = rssMiB(srv.pid())
	if srv.exited() {
		return errors.New("capstan server exited during the run")
	}
	return nil
}

func (b *Bench) note(format string, args ...any) {
	b.res.Notes = append(b.res.Notes, fmt.Sprintf(format, args...))
}
