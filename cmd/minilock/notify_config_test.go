package main

import (
	"strings"
	"testing"
)

func TestParseConfigNotify(t *testing.T) {
	o := defaults()
	if err := o.parseConfig(strings.NewReader("notify-keyspace-events \"Ex\"\n")); err != nil {
		t.Fatal(err)
	}
	if o.server.NotifyKeyspaceEvents != "Ex" {
		t.Fatalf("parsed %q", o.server.NotifyKeyspaceEvents)
	}
	_, text := argsToConfig([]string{"--notify-keyspace-events", "KEA"})
	if err := o.parseConfig(strings.NewReader(text)); err != nil || o.server.NotifyKeyspaceEvents != "KEA" {
		t.Fatalf("--notify-keyspace-events KEA: %q, %v", o.server.NotifyKeyspaceEvents, err)
	}
	err := o.parseConfig(strings.NewReader("notify-keyspace-events KEAX\n"))
	if err == nil || !strings.Contains(err.Error(), "Invalid event class character") {
		t.Fatalf("a bad class: %v", err)
	}
}
