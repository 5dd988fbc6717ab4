package main

import (
	"testing"
	"time"
)

func TestParseFrame(t *testing.T) {
	tests := []struct {
		name, line string
		typ        string
		seq        int
		sent       time.Duration
	}{
		{"fast path", `{"type":"ADDED","object":{"apiVersion":"v1","data":{"payload":"xx","sent":"42","seq":"7"},"kind":"ConfigMap"}}`, "ADDED", 7, 42},
		{"reordered keys", `{"object":{"data":{"seq":"3","sent":"9"}},"type":"ADDED"}`, "ADDED", 3, 9},
		{"bookmark", `{"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"12"}}}`, "BOOKMARK", -1, 0},
		{"key twice", `{"type":"ADDED","object":{"data":{"seq":"1","sent":"5","x":"\"seq\":\"2"}}}`, "ADDED", 1, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, seq, sent, err := parseFrame([]byte(tt.line))
			if err != nil || typ != tt.typ || seq != tt.seq || sent != tt.sent {
				t.Errorf("parseFrame = %q, %d, %d, %v; want %q, %d, %d", typ, seq, sent, err, tt.typ, tt.seq, tt.sent)
			}
		})
	}
	if _, _, _, err := parseFrame([]byte(`{"type":`)); err == nil {
		t.Error("truncated frame: no error")
	}
}
