// Command bench measures a Capstan API server against the etcd it stores in.
//
// In one run it starts an embedded etcd, builds and starts `capstan server`
// on it, and reports raw etcd Put throughput, the REST verbs on ConfigMaps,
// watch fan-out, server memory and startup time:
//
//	go run ./bench [--n 3000] [--concurrency 16] [--watchers 100,1000] [--json]
//
// All load goes to 127.0.0.1 and is bounded in count and time.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config is the whole run's settings, bound from flags.
type Config struct {
	N             int           // operations per measured verb
	Concurrency   int           // workers issuing operations in parallel
	Watchers      []int         // watcher counts, one fan-out round each
	Events        int           // writes per fan-out round
	EventInterval time.Duration // pacing between those writes
	UnsafeNoFsync bool          // run etcd without fsync
	HTTP1         bool          // use HTTP/1.1 keep-alive instead of HTTP/2
	StartupRuns   int           // fresh-dir start plus restart pairs to time; 0 skips
	Timeout       time.Duration // bound on the whole run
	JSON          bool          // print JSON instead of Markdown
	ProfileDir    string        // if set, a server CPU profile per verb is written here
	ProfileFor    time.Duration // how long each verb's profiles run
	Verbs         []string      // REST verbs to measure, in runVerbs' order; empty means all
	Turns         int           // slices the baseline and the first verb are measured in, alternately
}

// Validate reports settings the run cannot use.
func (c *Config) Validate() error {
	var errs []error
	if c.N < 10 {
		errs = append(errs, errors.New("--n must be at least 10"))
	}
	if c.Concurrency < 1 {
		errs = append(errs, errors.New("--concurrency must be at least 1"))
	}
	if c.Turns < 1 || c.Turns > c.N {
		errs = append(errs, errors.New("--turns must be between 1 and --n"))
	}
	if c.StartupRuns < 0 {
		errs = append(errs, errors.New("--startup-runs must not be negative"))
	}
	if c.Events < 1 {
		errs = append(errs, errors.New("--events must be at least 1"))
	}
	for _, v := range c.Verbs {
		if !slices.Contains(allVerbs, v) {
			errs = append(errs, fmt.Errorf("--verbs: %q is not one of %s", v, strings.Join(allVerbs, ",")))
		}
	}
	for _, w := range c.Watchers {
		if w < 1 || w > 10000 {
			errs = append(errs, fmt.Errorf("--watchers: %d is not in 1..10000", w))
		}
	}
	return errors.Join(errs...)
}

func main() {
	var cfg Config
	var watchers, verbs string
	flag.IntVar(&cfg.N, "n", 3000, "operations per measured verb (list uses n/10)")
	flag.IntVar(&cfg.Turns, "turns", 4, "slices the etcd Put baseline and the first verb (create) are measured in, alternately, so both see the same machine load")
	flag.IntVar(&cfg.Concurrency, "concurrency", 16, "concurrent workers")
	flag.StringVar(&watchers, "watchers", "100,1000", "comma-separated watcher counts, one fan-out round each; empty skips watch")
	flag.IntVar(&cfg.Events, "events", 200, "writes per watch fan-out round")
	flag.DurationVar(&cfg.EventInterval, "event-interval", 5*time.Millisecond, "pacing between watch round writes")
	flag.BoolVar(&cfg.UnsafeNoFsync, "unsafe-no-fsync", false, "run the benchmark's etcd without fsync")
	flag.BoolVar(&cfg.HTTP1, "http1", false, "talk HTTP/1.1 with keep-alive instead of HTTP/2")
	flag.IntVar(&cfg.StartupRuns, "startup-runs", 3, "times to time a first start and a restart of a server with embedded etcd (median reported); 0 skips")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "bound on the whole run")
	flag.StringVar(&cfg.ProfileDir, "profile-dir", "", "write a CPU profile of the server per measured verb into this directory (go tool pprof)")
	flag.StringVar(&verbs, "verbs", strings.Join(allVerbs, ","), "comma-separated REST verbs to measure; each works on what the one before it in this order left, so get, update and delete need create")
	flag.DurationVar(&cfg.ProfileFor, "profile-for", 3*time.Second, "how long each verb's profiles run, from the verb's start (the server idles while the etcd baseline runs, so a profile spanning it covers only the verb)")
	flag.BoolVar(&cfg.JSON, "json", false, "print results as JSON instead of a Markdown table")
	flag.Parse()
	var err error
	if cfg.Watchers, err = parseInts(watchers); err != nil {
		fatal(fmt.Errorf("--watchers: %w", err))
	}
	for v := range strings.SplitSeq(verbs, ",") {
		if v = strings.TrimSpace(v); v != "" {
			cfg.Verbs = append(cfg.Verbs, v)
		}
	}
	if err := cfg.Validate(); err != nil {
		fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	res, err := New(cfg).Run(ctx)
	if res != nil {
		if cfg.JSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(res)
		} else {
			res.WriteMarkdown(os.Stdout)
		}
	}
	if err != nil {
		fatal(err)
	}
}

func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
