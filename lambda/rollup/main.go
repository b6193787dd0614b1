// Command rollup is the history rollup function of the hotkeys stack: a
// Lambda function EventBridge Scheduler invokes every minute (the
// template's HistoryRollupFunction) to merge the history table's shard
// windows into rollups (package rollup), so that `hotkeys history` reads a
// day of a 1,000-shard table in seconds.
//
// It is a function of its own, not a mode of the stream function: it
// needs other permissions (Query and UpdateItem on the history table,
// nothing of the stream), other memory and time, and its failures, retried
// and alarmed on their own, can never hold up a stream shard.
//
// Its event is {"scheduled_time": "2026-11-22T10:05:00Z"}, the time the
// schedule fired for (EventBridge Scheduler's <aws.scheduler.scheduled-time>);
// without one it works on the current minute. Configuration is read here
// and only here, from the environment; a bad value stops the cold start
// with an error naming the variable.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/hotkeys-dev/hotkeys/history/rollup"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/envconfig"
)

// envVars lists every variable the function reads, with what it means. The
// template tests check that template.yaml sets only these.
var envVars = []string{
	"HOTKEYS_HISTORY_TABLE",          // the history table (required)
	"HOTKEYS_WINDOW",                 // the stored windows' length: 60s, 5m or seconds; must divide an hour (60s)
	"HOTKEYS_HISTORY_WRITE_SHARDS",   // write shards the stream function stores under: 1 to 1024 (64)
	"HOTKEYS_HISTORY_RETENTION_DAYS", // days a rollup lives (the table's TTL): 1 to 3650 (30)
}

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	h, err := setup(context.Background(), os.Getenv, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hotkeys rollup: %v\n", err)
		log.Error("configuration error", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(h)
}

func setup(ctx context.Context, getenv func(string) string, log *slog.Logger) (*handler, error) {
	cfg, err := configFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	table, err := cfg.history.Open(dynamodb.NewFromConfig(awsCfg, store.ClientOptions))
	if err != nil {
		return nil, err
	}
	job, err := rollup.New(table, rollup.Config{Window: cfg.window}, log, time.Now)
	if err != nil {
		return nil, err
	}
	return &handler{job: job, now: time.Now}, nil
}

// config is the function's configuration: every variable of envVars, read
// by configFromEnv and nowhere else.
type config struct {
	history envconfig.History // HOTKEYS_HISTORY_TABLE, _WRITE_SHARDS, _RETENTION_DAYS
	window  time.Duration     // HOTKEYS_WINDOW
}

// configFromEnv reads the variables of envVars.
func configFromEnv(getenv func(string) string) (config, error) {
	cfg := config{window: time.Minute}
	var err error
	if cfg.history, err = envconfig.HistoryFromEnv(getenv); err != nil {
		return cfg, err
	}
	if cfg.history.Table == "" {
		return cfg, fmt.Errorf("HOTKEYS_HISTORY_TABLE is empty: name the history table to roll up")
	}
	if v := getenv("HOTKEYS_WINDOW"); v != "" {
		d, ok := envconfig.Seconds(v)
		if !ok || d < time.Second || d%time.Second != 0 || time.Hour%d != 0 {
			return cfg, fmt.Errorf("HOTKEYS_WINDOW=%q: rollups need whole seconds that divide an hour, such as 60s or 5m", v)
		}
		cfg.window = d
	}
	return cfg, nil
}

// handler is the function: one run per invocation.
type handler struct {
	job *rollup.Job
	now func() time.Time
}

// event is what the schedule sends.
type event struct {
	ScheduledTime string `json:"scheduled_time"`
}

// Invoke runs the job for the event's scheduled time. An error fails the
// invocation, and Lambda retries it (EventBridge Scheduler invokes
// asynchronously); the run redoes the same work.
func (h *handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var ev event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("rollup: event %.200q: want {\"scheduled_time\": \"2026-11-22T10:05:00Z\"}: %w", payload, err)
	}
	at := h.now()
	if ev.ScheduledTime != "" {
		t, err := time.Parse(time.RFC3339, ev.ScheduledTime)
		if err != nil {
			return nil, fmt.Errorf("rollup: scheduled_time %q: want RFC 3339, such as 2026-11-22T10:05:00Z", ev.ScheduledTime)
		}
		at = t
	}
	res, err := h.job.Run(ctx, at)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
