package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Bounds on one fan-out round.
const (
	watchOpenTimeout  = 60 * time.Second // for all watchers to get their 200
	watchDrainTimeout = 15 * time.Second // after the last write, for the last event to arrive
)

// WatchResult is one fan-out round: W watchers, E writes.
type WatchResult struct {
	Watchers     int            `json:"watchers"`
	Writes       int            `json:"writes"`
	Interval     time.Duration  `json:"intervalNs"` // pacing between writes
	Opened       int            `json:"opened"`
	OpenErrors   map[string]int `json:"openErrors,omitempty"`
	OpenTime     time.Duration  `json:"openTimeNs"`
	WriteErrors  map[string]int `json:"writeErrors,omitempty"`
	WriteP50     time.Duration  `json:"writeP50Ns"`
	WriteP99     time.Duration  `json:"writeP99Ns"`
	WriteSpan    time.Duration  `json:"writeSpanNs"`   // first write sent to last write answered
	DeliverSpan  time.Duration  `json:"deliverSpanNs"` // first write sent to last event received
	Delivered    int            `json:"delivered"`     // distinct events received, over all watchers
	Expected     int            `json:"expected"`      // opened watchers × successful writes
	Missing      int            `json:"missing"`
	Duplicates   int            `json:"duplicates"`
	OutOfOrder   int            `json:"outOfOrder"`
	StreamErrors map[string]int `json:"streamErrors,omitempty"`
	EventsPerSec float64        `json:"eventsPerSec"`
	DelayP50     time.Duration  `json:"delayP50Ns"`
	DelayP99     time.Duration  `json:"delayP99Ns"`
	DelayMax     time.Duration  `json:"delayMaxNs"`
	RSSOpenMiB   float64        `json:"rssOpenMiB"`  // server RSS with every watcher open
	ServerCores  float64        `json:"serverCores"` // CPU from first write to last delivery
	BenchCores   float64        `json:"benchCores"`
}

// watchFrame is the part of a watch event the benchmark reads.
type watchFrame struct {
	Type   string `json:"type"`
	Object struct {
		Data struct {
			Seq  string `json:"seq"`
			Sent string `json:"sent"`
		} `json:"data"`
	} `json:"object"`
}

// watcher is one watch stream's tally; only its own goroutine writes it until the round's Wait.
type watcher struct {
	seen    []bool          // by write sequence number
	delays  []time.Duration // receive time minus the write's embedded send time
	got     int
	dups    int
	ooo     int           // events older than one already received
	lastSeq int           // highest sequence number received
	last    time.Duration // receive time of the newest event, since the round's base
	err     error         // why the stream ended early, if it did
}

// runWatch opens w watch streams over wc on configmaps in a fresh namespace for
// round, makes events paced writes over api whose data carries the send time,
// and measures delivery. pid is the server's, for its RSS and CPU.
func runWatch(ctx context.Context, api, wc *apiClient, pid, round, w, events int, interval time.Duration) (*WatchResult, error) {
	ns := fmt.Sprintf("watch-%d-%d", round, w)
	if err := api.ensureNamespace(ctx, ns); err != nil {
		return nil, err
	}
	rv, err := api.listRV(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", ns, err)
	}
	res := &WatchResult{Watchers: w, Writes: events, Interval: interval, OpenErrors: map[string]int{}, WriteErrors: map[string]int{}, StreamErrors: map[string]int{}}
	base := time.Now() // every timestamp in the round is time.Since(base): monotonic, one process

	wctx, cancel := context.WithCancel(ctx)
	openc := make(chan error, w) // one send per watcher: nil once its stream is open
	ws := make([]*watcher, w)
	var wg sync.WaitGroup
	path := cmPath(ns, "") + "?watch=1&resourceVersion=" + rv
	for i := range ws {
		ws[i] = &watcher{seen: make([]bool, events), delays: make([]time.Duration, 0, events), lastSeq: -1}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[i].run(wctx, wc, path, base, events, openc)
		}()
	}
	defer func() { // on every return path: stop the streams, then wait for their readers
		cancel()
		wg.Wait()
	}()

	openStart := time.Now()
	timeout := time.After(watchOpenTimeout)
	for range w {
		select {
		case err := <-openc:
			if err != nil {
				res.OpenErrors[errorKind(err)]++
				continue
			}
			res.Opened++
		case <-timeout:
			return res, fmt.Errorf("only %d of %d watchers open after %v", res.Opened, w, watchOpenTimeout)
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
	res.OpenTime = time.Since(openStart)
	res.RSSOpenMiB, _, _ = rssMiB(pid)

	// Paced writes: one at a time, each starting no sooner than interval after the previous one started.
	cpu0 := sampleCPU(pid)
	tick := time.NewTicker(interval)
	var writeLat []time.Duration
	ok := 0
	first := time.Since(base)
	for i := range events {
		if i > 0 {
			select {
			case <-tick.C:
			case <-ctx.Done():
				tick.Stop()
				return res, ctx.Err()
			}
		}
		sent := time.Since(base)
		body := newConfigMap(ns, fmt.Sprintf("ev-%05d", i), "", map[string]string{
			"seq": strconv.Itoa(i), "sent": strconv.FormatInt(int64(sent), 10),
		})
		if _, err := api.do(ctx, http.MethodPost, cmPath(ns, ""), body, http.StatusCreated); err != nil {
			res.WriteErrors[errorKind(err)]++
			continue
		}
		writeLat = append(writeLat, time.Since(base)-sent)
		ok++
	}
	tick.Stop()
	res.WriteSpan = time.Since(base) - first
	slices.Sort(writeLat)
	res.WriteP50, res.WriteP99 = quantile(writeLat, 0.50), quantile(writeLat, 0.99)

	// Each watcher ends once it has every event; give stragglers a bound, then cut them off.
	donec := make(chan struct{}) // closed when every watcher has returned
	go func() {
		wg.Wait()
		close(donec)
	}()
	select {
	case <-donec:
	case <-time.After(watchDrainTimeout):
	case <-ctx.Done():
	}
	cancel()
	<-donec
	cpuSpan := time.Since(base) - first
	res.ServerCores, res.BenchCores = sampleCPU(pid).cores(cpu0, cpuSpan)

	var delays []time.Duration
	var last time.Duration
	for _, x := range ws {
		res.Delivered += x.got
		res.Duplicates += x.dups
		res.OutOfOrder += x.ooo
		if x.err != nil {
			res.StreamErrors[errorKind(x.err)]++
		}
		delays = append(delays, x.delays...)
		last = max(last, x.last)
	}
	res.Expected = res.Opened * ok
	res.Missing = res.Expected - res.Delivered
	slices.Sort(delays)
	res.DelayP50, res.DelayP99 = quantile(delays, 0.50), quantile(delays, 0.99)
	if len(delays) > 0 {
		res.DelayMax = delays[len(delays)-1]
	}
	if last > first {
		res.DeliverSpan = last - first
		res.EventsPerSec = float64(res.Delivered) / res.DeliverSpan.Seconds()
	}
	return res, ctx.Err()
}

// run opens one stream, reports on openc, and reads events until it has all of
// them, the stream fails, or ctx ends.
func (x *watcher) run(ctx context.Context, c *apiClient, path string, base time.Time, events int, openc chan<- error) {
	req, err := c.newRequest(ctx, http.MethodGet, path, nil)
	if err != nil {
		openc <- err
		return
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		openc <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		openc <- &statusError{Code: resp.StatusCode, Body: truncate(string(b), 200)}
		return
	}
	openc <- nil

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 16<<10), 16<<20) // frames are ~0.5 KiB; allow large objects
	for sc.Scan() {
		now := time.Since(base)
		typ, seq, sent, err := parseFrame(sc.Bytes())
		if err != nil {
			x.err = err
			return
		}
		switch typ {
		case "ADDED":
		case "ERROR":
			x.err = fmt.Errorf("watch ERROR frame: %s", truncate(sc.Text(), 200))
			return
		default: // BOOKMARK; MODIFIED and DELETED do not happen in this round
			continue
		}
		if seq < 0 || seq >= events {
			continue
		}
		if x.seen[seq] {
			x.dups++
			continue
		}
		if seq < x.lastSeq {
			x.ooo++
		}
		x.seen[seq], x.got, x.last = true, x.got+1, now
		x.lastSeq = max(x.lastSeq, seq)
		x.delays = append(x.delays, now-sent)
		if x.got == events {
			return
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		x.err = err
	} else if ctx.Err() == nil {
		x.err = io.ErrUnexpectedEOF // the server ended the stream
	}
}

// Byte patterns of the frames the server writes: {"type":"ADDED","object":{...}}.
var (
	typePrefix = []byte(`{"type":"`)
	seqKey     = []byte(`"seq":"`)
	sentKey    = []byte(`"sent":"`)
)

// parseFrame reads a watch frame's type and, for the round's own objects, the
// write's sequence number and send time (-1 and 0 when absent). The shape the
// server writes is read without a full decode, so that a thousand readers cost
// the shared CPUs little; anything else goes through encoding/json.
func parseFrame(line []byte) (typ string, seq int, sent time.Duration, err error) {
	if rest, ok := bytes.CutPrefix(line, typePrefix); ok {
		if i := bytes.IndexByte(rest, '"'); i > 0 {
			typ = string(rest[:i])
			seqv, ok1 := field(rest, seqKey)
			sentv, ok2 := field(rest, sentKey)
			if ok1 && ok2 {
				n, err1 := strconv.Atoi(string(seqv))
				ns, err2 := strconv.ParseInt(string(sentv), 10, 64)
				if err1 == nil && err2 == nil {
					return typ, n, time.Duration(ns), nil
				}
			}
		}
	}
	var f watchFrame
	if err := json.Unmarshal(line, &f); err != nil {
		return "", 0, 0, fmt.Errorf("decoding watch frame: %w", err)
	}
	n, err1 := strconv.Atoi(f.Object.Data.Seq)
	ns, err2 := strconv.ParseInt(f.Object.Data.Sent, 10, 64)
	if err1 != nil || err2 != nil {
		return f.Type, -1, 0, nil // not one of the round's writes
	}
	return f.Type, n, time.Duration(ns), nil
}

// field is the string value after key, if key occurs exactly once.
func field(b, key []byte) ([]byte, bool) {
	i := bytes.Index(b, key)
	if i < 0 || bytes.Index(b[i+len(key):], key) >= 0 {
		return nil, false
	}
	v := b[i+len(key):]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return nil, false
	}
	return v[:j], true
}
