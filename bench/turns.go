package main

import (
	"context"
	"slices"
)

// meter measures operation runs and the CPU the server and this process
// (the benchmark's etcd included) spend on them.
type meter struct {
	pid, conc int
}

// measured is one verb's operations, possibly run in several slices.
type measured struct {
	load *Load
	cpu  cpuSample // CPU used during the runs, not a point in time
}

// run measures n operations of op, numbered from first, and adds them to m.
func (mt meter) run(ctx context.Context, into *measured, n, first int, op opFunc) {
	before := sampleCPU(mt.pid)
	l := runOps(ctx, n, mt.conc, func(ctx context.Context, i int) error { return op(ctx, first+i) })
	after := sampleCPU(mt.pid)
	into.cpu.server += after.server - before.server
	into.cpu.self += after.self - before.self
	if into.load == nil {
		into.load = l
		return
	}
	into.load.merge(l)
}

// inTurns measures n operations of a and n of b in turns, slices at a time
// each, so that both see the same stretches of a shared machine's load: two
// figures measured a minute apart moved by up to ±30% against each other.
func (mt meter) inTurns(ctx context.Context, n, slices int, a, b opFunc) (ma, mb measured) {
	for i := range slices {
		first, last := n*i/slices, n*(i+1)/slices
		mt.run(ctx, &ma, last-first, first, a)
		mt.run(ctx, &mb, last-first, first, b)
	}
	return ma, mb
}

// summary reduces m for the report, as a ratio to base ops/s when base > 0.
func (m measured) summary(name string, base float64) *LoadSummary {
	s := summarize(name, m.load, base)
	s.ServerCores, s.BenchCores = m.cpu.cores(cpuSample{}, m.load.Elapsed)
	return s
}

// merge adds o's operations to l.
func (l *Load) merge(o *Load) {
	l.Ops += o.Ops
	l.OK += o.OK
	l.Elapsed += o.Elapsed
	for k, v := range o.Errors {
		l.Errors[k] += v
	}
	l.lat = append(l.lat, o.lat...)
	slices.Sort(l.lat)
}
