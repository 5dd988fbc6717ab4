package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// benchNamespace holds the REST benchmark's ConfigMaps.
const benchNamespace = "bench"

// allVerbs are the REST verbs runVerbs measures, in its order.
var allVerbs = []string{"create", "get", "list", "update", "delete"}

// measureFunc runs ops operations of one named kind and records the outcome.
type measureFunc func(name string, ops int, op opFunc)

// runVerbs measures create, get, list, update and delete of n ConfigMaps, in
// that order, or those of them in verbs: each verb works on what the
// previous one left.
func runVerbs(ctx context.Context, c *apiClient, n int, verbs []string, measure measureFunc) error {
	ns := benchNamespace
	name := func(i int) string { return fmt.Sprintf("cm-%06d", i) }
	rvs := make([]string, n) // from get, for update; index i is written by one worker only
	step := func(verb string, ops int, op opFunc) {
		if ctx.Err() == nil && (len(verbs) == 0 || slices.Contains(verbs, strings.Fields(verb)[0])) {
			measure(verb, ops, op)
		}
	}

	// Bodies are encoded before the clock starts, as the etcd baseline's values are.
	creates := make([][]byte, n)
	for i := range creates {
		creates[i] = newConfigMap(ns, name(i), "", map[string]string{"seq": strconv.Itoa(i)})
	}
	step("create", n, func(ctx context.Context, i int) error {
		_, err := c.do(ctx, http.MethodPost, cmPath(ns, ""), creates[i], http.StatusCreated)
		return err
	})
	step("get", n, func(ctx context.Context, i int) error {
		b, err := c.do(ctx, http.MethodGet, cmPath(ns, name(i)), nil, http.StatusOK)
		if err != nil {
			return err
		}
		var cm configMap
		if err := json.Unmarshal(b, &cm); err != nil {
			return fmt.Errorf("decoding configmap: %w", err)
		}
		rvs[i] = cm.Metadata.ResourceVersion
		return nil
	})
	step(fmt.Sprintf("list (%d items)", n), max(n/10, 1), func(ctx context.Context, i int) error {
		return c.discard(ctx, cmPath(ns, ""))
	})
	step("update", n, func(ctx context.Context, i int) error {
		if rvs[i] == "" {
			return errors.New("no resourceVersion from get")
		}
		body := newConfigMap(ns, name(i), rvs[i], map[string]string{"seq": strconv.Itoa(i), "updated": "true"})
		_, err := c.do(ctx, http.MethodPut, cmPath(ns, name(i)), body, http.StatusOK)
		return err
	})
	step("delete", n, func(ctx context.Context, i int) error {
		_, err := c.do(ctx, http.MethodDelete, cmPath(ns, name(i)), nil, http.StatusOK)
		return err
	})
	return ctx.Err()
}

// discard GETs path, expects 200 and drops the body unread by any decoder.
func (c *apiClient) discard(ctx context.Context, path string) error {
	req, err := c.newRequest(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return &statusError{Code: resp.StatusCode, Body: truncate(string(b), 200)}
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// storedSize creates a probe ConfigMap like the benchmark's, reads it back and
// deletes it; the size read back is what etcd stores per object, near enough.
func storedSize(ctx context.Context, c *apiClient) (posted, stored int, err error) {
	body := newConfigMap(benchNamespace, "probe", "", map[string]string{"seq": "0"})
	if _, err := c.do(ctx, http.MethodPost, cmPath(benchNamespace, ""), body, http.StatusCreated); err != nil {
		return 0, 0, fmt.Errorf("creating probe configmap: %w", err)
	}
	b, err := c.do(ctx, http.MethodGet, cmPath(benchNamespace, "probe"), nil, http.StatusOK)
	if err != nil {
		return 0, 0, fmt.Errorf("reading probe configmap: %w", err)
	}
	if _, err := c.do(ctx, http.MethodDelete, cmPath(benchNamespace, "probe"), nil, http.StatusOK); err != nil {
		return 0, 0, fmt.Errorf("deleting probe configmap: %w", err)
	}
	return len(body), len(b), nil
}
