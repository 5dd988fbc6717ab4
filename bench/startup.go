package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// Startup is how long `capstan server` with its embedded etcd takes to answer /readyz.
type Startup struct {
	// First and Restart are medians of FirstRuns and RestartRuns.
	First       time.Duration   `json:"firstNs"`   // fresh data dir: generates the CA and certificates, creates etcd
	Restart     time.Duration   `json:"restartNs"` // the same data dir again
	FirstRuns   []time.Duration `json:"firstRunsNs"`
	RestartRuns []time.Duration `json:"restartRunsNs"`
	// Stops and GracefulStops count the servers stopped, and those that exited within the grace period after SIGTERM.
	Stops         int      `json:"stops"`
	GracefulStops int      `json:"gracefulStops"`
	Log           []string `json:"log,omitempty"` // the servers' warn+ log lines, the first few
	LogLines      int      `json:"logLines"`
}

// startupPoll is how often /readyz is polled while timing startup.
const startupPoll = 5 * time.Millisecond

// measureStartup runs, runs times, a server with an embedded etcd in a fresh data dir
// under tmp, stops it, and starts it again on the same dir, timing exec to the
// first 200 from /readyz each time.
func measureStartup(ctx context.Context, bin, tmp string, runs int) (*Startup, error) {
	res := &Startup{}
	for run := range runs {
		dataDir := filepath.Join(tmp, fmt.Sprintf("startup-%d", run))
		first, restart, err := startTwice(ctx, bin, dataDir, res)
		lines, n := readLog(logPathFor(dataDir), 20-len(res.Log))
		res.Log, res.LogLines = append(res.Log, lines...), res.LogLines+n
		if err != nil {
			return res, fmt.Errorf("startup run %d: %w", run+1, err)
		}
		res.FirstRuns = append(res.FirstRuns, first)
		res.RestartRuns = append(res.RestartRuns, restart)
	}
	res.First, res.Restart = median(res.FirstRuns), median(res.RestartRuns)
	return res, nil
}

// startTwice starts and stops a server on dataDir twice, keeping the etcd ports.
func startTwice(ctx context.Context, bin, dataDir string, res *Startup) (first, restart time.Duration, err error) {
	clientURL, err := freeURL()
	if err != nil {
		return 0, 0, err
	}
	peerURL, err := freeURL()
	if err != nil {
		return 0, 0, err
	}
	for _, d := range []*time.Duration{&first, &restart} {
		p, err := startServer(bin, dataDir, "--embedded-etcd-client-url", clientURL, "--embedded-etcd-peer-url", peerURL)
		if err != nil {
			return 0, 0, err
		}
		*d, err = waitReady(ctx, p, startupPoll, readyTimeout)
		res.Stops++
		if p.stop() {
			res.GracefulStops++
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return first, restart, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}
