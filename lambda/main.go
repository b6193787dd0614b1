// Command bootstrap is the hotkeys Lambda function: it reads a DynamoDB
// table's stream, finds the hot partition keys of every window, publishes
// CloudWatch metrics and logs one line per flagged key.
//
// Configuration is read here and only here, from the environment; a bad
// value stops the cold start with an error naming the variable.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/redact"
)

// envVars lists every variable the function reads, with what it means. The
// template tests check that template.yaml sets only these.
var envVars = []string{
	"HOTKEYS_WINDOW",                    // window length for plain batches: 60s, 5m or seconds (tumbling windows follow the event source)
	"HOTKEYS_SHARE_THRESHOLD",           // fraction of the window's WCU that flags a key (0.10)
	"HOTKEYS_MIN_WCU_PER_SECOND",        // peak WCU/s a key needs to be flagged (100)
	"HOTKEYS_CRITICAL_WCU_PER_SECOND",   // peak WCU/s that makes a key critical (800)
	"HOTKEYS_PARTITION_LIMIT",           // per-partition limit, WCU/s (1000)
	"HOTKEYS_SATURATION_FRACTION",       // a key or stream shard at this fraction of the limit ... (0.9)
	"HOTKEYS_SATURATION_SECONDS",        // ... for this many seconds of a window is saturated (3)
	"HOTKEYS_PARTITION_KEY",             // partition-key attribute; empty = DescribeTable
	"HOTKEYS_INDEXES",                   // analyse the global secondary indexes: auto (when the table has any), on or off (auto)
	"HOTKEYS_TOP",                       // keys listed and published per window (10)
	"HOTKEYS_NAMESPACE",                 // CloudWatch namespace (HotKeyDetector)
	"HOTKEYS_METRICS",                   // api, emf, both or off (api)
	"HOTKEYS_KEY_REDACTION",             // none or hash (none)
	"HOTKEYS_KEY_REDACTION_SECRET_ARN",  // Secrets Manager secret that keys the hash; needed by hash
	"HOTKEYS_HISTORY_TABLE",             // table to store each closed window's summary in; empty = off
	"HOTKEYS_HISTORY_RETENTION_DAYS",    // days a stored summary lives (the table's TTL): 1 to 3650 (30)
	"HOTKEYS_HISTORY_WRITE_SHARDS",      // partition key values the history items spread over: 1 to 1024 (64)
	"HOTKEYS_HISTORY_WRITE_SPREAD",      // spread of the final invokes' history writes: 0s to 20s (0s)
	"HOTKEYS_NOTIFY_TOPIC_ARN",          // SNS topic each onset is published to; empty = off
	"HOTKEYS_NOTIFY_MAX_PER_INVOCATION", // onset messages per invocation at most: 1 to 100 (5)
}

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	h, err := setup(context.Background(), os.Getenv, log)
	if err != nil {
		// Printed where Lambda shows init errors; the process exit makes
		// the cold start fail, so a bad deploy is loud, not silent.
		fmt.Fprintf(os.Stderr, "hotkeys: %v\n", err)
		log.Error("configuration error", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(h)
}

func setup(ctx context.Context, getenv func(string) string, log *slog.Logger) (*handler, error) {
	cfg, acfg, partitionKey, err := configFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	secretArn, err := redactionFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	mode, err := indexesFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if secretArn != "" {
		// Once per container: the secret keys every stand-in this
		// environment publishes.
		if cfg.Redactor, err = loadRedactor(ctx, secretsmanager.NewFromConfig(awsCfg), secretArn); err != nil {
			return nil, err
		}
	}
	var api alert.MetricPutter
	if acfg.Mode == alert.ModeAPI || acfg.Mode == alert.ModeBoth {
		api = cloudwatch.NewFromConfig(awsCfg)
	}
	pub, err := alert.NewPublisher(acfg, api, os.Stdout)
	if err != nil {
		return nil, err
	}
	ddb := dynamodb.NewFromConfig(awsCfg)
	// Asked again every indexRefresh, so that a GSI added while the
	// container lives is analysed without a restart.
	schemas := keyschema.NewRefreshingCache(ddb, indexRefresh, time.Now)
	h, err := newHandler(cfg, partitionKey, mode, schemas, pub, log, time.Now)
	if err != nil {
		return nil, err
	}
	if h.history, err = historyFromEnv(getenv, ddb, acfg.Namespace, log); err != nil {
		return nil, err
	}
	if h.notify, err = notifierFromEnv(getenv, func() topicPublisher { return sns.NewFromConfig(awsCfg) }, cfg.PartitionLimit, acfg.Namespace, log); err != nil {
		return nil, err
	}
	return h, nil
}

// notifierFromEnv reads HOTKEYS_NOTIFY_TOPIC_ARN and
// HOTKEYS_NOTIFY_MAX_PER_INVOCATION: nil when no topic is set.
func notifierFromEnv(getenv func(string) string, client func() topicPublisher, limit float64, namespace string, log *slog.Logger) (*notifier, error) {
	topic := getenv("HOTKEYS_NOTIFY_TOPIC_ARN")
	most := DefaultNotifyMaxPerInvocation
	if v := getenv("HOTKEYS_NOTIFY_MAX_PER_INVOCATION"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, fmt.Errorf("HOTKEYS_NOTIFY_MAX_PER_INVOCATION=%q: want a whole number of messages, 1 to 100", v)
		}
		most = n
	}
	if topic == "" {
		return nil, nil
	}
	if !strings.HasPrefix(topic, "arn:") || !strings.Contains(topic, ":sns:") {
		return nil, fmt.Errorf("HOTKEYS_NOTIFY_TOPIC_ARN=%q: want an SNS topic ARN, arn:aws:sns:REGION:ACCOUNT:NAME", topic)
	}
	return &notifier{api: client(), topic: topic, max: most, namespace: namespace, emf: os.Stdout, log: log, now: time.Now, partition: limit}, nil
}

// historyFromEnv reads HOTKEYS_HISTORY_TABLE, _RETENTION_DAYS,
// _WRITE_SHARDS and _WRITE_SPREAD: nil when the table is not set.
func historyFromEnv(getenv func(string) string, api store.API, namespace string, log *slog.Logger) (*historyStore, error) {
	table := getenv("HOTKEYS_HISTORY_TABLE")
	days := 30
	if v := getenv("HOTKEYS_HISTORY_RETENTION_DAYS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 3650 {
			return nil, fmt.Errorf("HOTKEYS_HISTORY_RETENTION_DAYS=%q: want whole days, 1 to 3650", v)
		}
		days = n
	}
	shards := store.DefaultWriteShards
	if v := getenv("HOTKEYS_HISTORY_WRITE_SHARDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxWriteShards {
			return nil, fmt.Errorf("HOTKEYS_HISTORY_WRITE_SHARDS=%q: want a whole number, 1 to %d", v, store.MaxWriteShards)
		}
		shards = n
	}
	var spread time.Duration
	if v := getenv("HOTKEYS_HISTORY_WRITE_SPREAD"); v != "" {
		d, err := parseSeconds(v)
		if err != nil || d < 0 || d > 20*time.Second {
			return nil, fmt.Errorf("HOTKEYS_HISTORY_WRITE_SPREAD=%q: want 0s to 20s, such as 4s", v)
		}
		spread = d
	}
	if table == "" {
		return nil, nil
	}
	t, err := store.New(api, table, store.Options{WriteShards: shards, Retention: time.Duration(days) * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	return &historyStore{table: t, namespace: namespace,
		emf: os.Stdout, log: log, now: time.Now, attempts: 5, firstDelay: 100 * time.Millisecond, reserve: 2 * time.Second,
		spread: spread, sleep: sleepCtx}, nil
}

// configFromEnv reads every HOTKEYS_ variable; an error names the variable
// and wraps detector.ErrConfig (or, for the metrics' settings, alert's
// sentinels), as the same mistake made with a flag of the CLI does.
func configFromEnv(getenv func(string) string) (detector.Config, alert.Config, string, error) {
	cfg := detector.DefaultConfig()
	acfg := alert.DefaultConfig()
	bad := func(name, val string, err error) error {
		return fmt.Errorf("%s=%q: %w", name, val, err)
	}
	if v := getenv("HOTKEYS_WINDOW"); v != "" {
		d, err := parseSeconds(v)
		if err != nil {
			return cfg, acfg, "", bad("HOTKEYS_WINDOW", v, err)
		}
		cfg.Window, cfg.Lateness = d, d
	}
	floats := []struct {
		name string
		dst  *float64
	}{
		{"HOTKEYS_SHARE_THRESHOLD", &cfg.ShareThreshold},
		{"HOTKEYS_MIN_WCU_PER_SECOND", &cfg.MinWCUPerSecond},
		{"HOTKEYS_CRITICAL_WCU_PER_SECOND", &cfg.CriticalWCUPerSecond},
		{"HOTKEYS_PARTITION_LIMIT", &cfg.PartitionLimit},
		{"HOTKEYS_SATURATION_FRACTION", &cfg.SaturationFraction},
	}
	for _, f := range floats {
		if v := getenv(f.name); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return cfg, acfg, "", bad(f.name, v, fmt.Errorf("%w: not a number", detector.ErrConfig))
			}
			*f.dst = x
		}
	}
	if v := getenv("HOTKEYS_TOP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cfg, acfg, "", bad("HOTKEYS_TOP", v, fmt.Errorf("%w: not a whole number", detector.ErrConfig))
		}
		cfg.Top, acfg.Top = n, n
	}
	if v := getenv("HOTKEYS_SATURATION_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cfg, acfg, "", bad("HOTKEYS_SATURATION_SECONDS", v, fmt.Errorf("%w: not a whole number of seconds", detector.ErrConfig))
		}
		cfg.SaturationSeconds = n
	}
	if err := cfg.Validate(); err != nil {
		return cfg, acfg, "", envError(err)
	}
	if v := getenv("HOTKEYS_NAMESPACE"); v != "" {
		acfg.Namespace = v
	}
	if v := getenv("HOTKEYS_METRICS"); v != "" {
		m, err := alert.ParseMode(v)
		if err != nil {
			return cfg, acfg, "", bad("HOTKEYS_METRICS", v, err)
		}
		acfg.Mode = m
	}
	if acfg.Top > alert.MaxTop {
		return cfg, acfg, "", bad("HOTKEYS_TOP", strconv.Itoa(acfg.Top), fmt.Errorf("%w: at most %d keys are published per window", alert.ErrConfig, alert.MaxTop))
	}
	if err := acfg.Validate(); err != nil {
		return cfg, acfg, "", fmt.Errorf("HOTKEYS_NAMESPACE or HOTKEYS_METRICS: %w", err)
	}
	return cfg, acfg, getenv("HOTKEYS_PARTITION_KEY"), nil
}

// redactionFromEnv returns the ARN of the secret that keys the redaction
// hash, or "" when keys are not redacted. The function offers none and
// hash only: hash-unsalted, which a dictionary reverses, is a CLI mode, and
// the secret itself is never an environment variable (anyone with
// lambda:GetFunctionConfiguration could read it).
func redactionFromEnv(getenv func(string) string) (string, error) {
	v := getenv("HOTKEYS_KEY_REDACTION")
	mode, err := redact.ParseMode(v)
	if err != nil || mode == redact.HashUnsalted {
		return "", fmt.Errorf("HOTKEYS_KEY_REDACTION=%q: want none or hash", v)
	}
	arn := getenv("HOTKEYS_KEY_REDACTION_SECRET_ARN")
	switch {
	case mode == redact.None:
		return "", nil
	case arn == "":
		return "", fmt.Errorf("HOTKEYS_KEY_REDACTION=hash needs HOTKEYS_KEY_REDACTION_SECRET_ARN, the ARN of the Secrets Manager secret that keys the hash (the template creates one); without it anyone could reverse the hashes with a dictionary")
	case !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":secretsmanager:"):
		return "", fmt.Errorf("HOTKEYS_KEY_REDACTION_SECRET_ARN=%q: want a Secrets Manager secret ARN, arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-SUFFIX", arn)
	}
	return arn, nil
}

// fieldVars names the fields of c the function sets by the variables that
// set them, keyed by the fields' addresses, as
// detector.FieldError.Message takes them: a renamed field does not
// compile, and an error names what the user can change.
func fieldVars(c *detector.Config) map[any]string {
	return map[any]string{
		&c.Window:               "HOTKEYS_WINDOW",
		&c.Lateness:             "HOTKEYS_WINDOW",
		&c.ShareThreshold:       "HOTKEYS_SHARE_THRESHOLD",
		&c.MinWCUPerSecond:      "HOTKEYS_MIN_WCU_PER_SECOND",
		&c.CriticalWCUPerSecond: "HOTKEYS_CRITICAL_WCU_PER_SECOND",
		&c.PartitionLimit:       "HOTKEYS_PARTITION_LIMIT",
		&c.SaturationFraction:   "HOTKEYS_SATURATION_FRACTION",
		&c.SaturationSeconds:    "HOTKEYS_SATURATION_SECONDS",
		&c.Top:                  "HOTKEYS_TOP",
	}
}

// envError words a validation error in the variables that set the fields
// it names: "detector: invalid configuration: HOTKEYS_SHARE_THRESHOLD 2:
// want a fraction in (0, 1], e.g. 0.10". A field no variable sets keeps
// its Go name.
func envError(err error) error {
	var fe *detector.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	var c detector.Config
	return fmt.Errorf("%w: %s", detector.ErrConfig, fe.Message(&c, fieldVars(&c)))
}

// parseSeconds reads "60s", "5m" or a plain number of seconds.
func parseSeconds(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%w: want a duration such as 60s or 5m", detector.ErrConfig)
	}
	return d, nil
}
