package lab

import (
	"regexp"
	"time"
)

// streamScenarios are a stream used as a work queue with a consumer group:
// what becomes of a job whose worker dies before acknowledging it.
var streamScenarios = []*Scenario{
	{
		Name:   "stream-consumer-crash",
		Title:  "XREADGROUP worker crashes before XACK; nobody claims its job",
		Key:    "jobs",
		Group:  "workers",
		Expect: StuckJob,
		Explain: `A work queue kept as a stream with a consumer group: P adds a job with
			XADD, worker A takes it with XREADGROUP ... > and crashes before its XACK. The
			entry stays in the group's pending entries list, delivered to A. XREADGROUP
			with > hands out only entries never delivered, so B, polling for new jobs,
			never sees it: the job is never done. Redis's streams introduction calls this
			recovering from permanent failures, and answers it with XCLAIM and XAUTOCLAIM.`,
		run: func(l *Lab) {
			p, a, b := l.client("P"), l.client("A"), l.client("B")
			addJob(p)
			takeJob(a)
			a.Crash("before XACK")
			l.Wait(time.Minute, "B polls for new jobs")
			takeJob(b)
			l.Wait(time.Hour, "B polls again")
			takeJob(b)
		},
	},
	{
		Name:   "stream-xautoclaim",
		Title:  "a worker XAUTOCLAIMs jobs pending for longer than 30s",
		Fixes:  "stream-consumer-crash",
		Key:    "jobs",
		Group:  "workers",
		Expect: Safe,
		Explain: `The same queue, but a worker that finds no new job also runs XAUTOCLAIM
			jobs workers <itself> 30000 0: every entry pending for more than 30 s, idle
			by the server's clock, is handed to it (its delivery count goes up, so a job
			that keeps killing workers can be set aside). B claims A's job, does it and
			acknowledges it with XACK, which empties the pending entries list. 30 s must
			be longer than any job takes, or a slow worker's job is claimed while it
			still works on it.`,
		run: func(l *Lab) {
			p, a, b := l.client("P"), l.client("A"), l.client("B")
			addJob(p)
			takeJob(a)
			a.Crash("before XACK")
			l.Wait(time.Minute, "B polls for new jobs")
			if takeJob(b) == "" {
				if id := claimStale(b, 30*time.Second); id != "" {
					l.Wait(2*time.Second, "B does the job")
					finishJob(b, id)
				}
			}
		},
	},
}

// addJob creates the queue's group (and stream) and adds one job.
func addJob(c *Client) {
	sc := c.lab.sc
	c.Do("XGROUP", "CREATE", sc.Key, sc.Group, "$", "MKSTREAM")
	c.Do("XADD", sc.Key, "*", "task", "paint the fence")
}

// takeJob asks for one new job; a worker that gets one believes it works
// on it until it acknowledges it. It returns the job's ID, or "".
func takeJob(c *Client) string {
	sc := c.lab.sc
	r := c.Do("XREADGROUP", "GROUP", sc.Group, c.Name, "COUNT", 1, "STREAMS", sc.Key, ">")
	id := firstID(r.val)
	if id != "" {
		c.holds(forever)
	}
	return id
}

// claimStale is XAUTOCLAIM of one job idle for at least minIdle.
func claimStale(c *Client, minIdle time.Duration) string {
	sc := c.lab.sc
	r := c.Do("XAUTOCLAIM", sc.Key, sc.Group, c.Name, minIdle.Milliseconds(), "0", "COUNT", 1)
	// [next cursor, [claimed entry ...], [deleted ID ...]]
	if parts, ok := r.val.([]any); ok && len(parts) == 3 {
		if id := firstID(parts[1]); id != "" {
			c.holds(forever)
			return id
		}
	}
	return ""
}

// finishJob acknowledges the job: the worker is done with it.
func finishJob(c *Client, id string) {
	sc := c.lab.sc
	c.Do("XACK", sc.Key, sc.Group, id)
	c.released()
}

var entryID = regexp.MustCompile(`^\d+-\d+$`)

// firstID is the first entry ID in a stream reply (RESP2 arrays or RESP3
// maps, as go-redis returns them), or "".
func firstID(v any) string {
	switch v := v.(type) {
	case string:
		if entryID.MatchString(v) {
			return v
		}
	case []any:
		for _, e := range v {
			if id := firstID(e); id != "" {
				return id
			}
		}
	case map[any]any:
		for _, e := range v {
			if id := firstID(e); id != "" {
				return id
			}
		}
	}
	return ""
}
