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
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/envconfig"
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
	cfg, err := configFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.secretARN != "" {
		// Once per container: the secret keys every stand-in this
		// environment publishes.
		if cfg.detector.Redactor, err = loadRedactor(ctx, secretsmanager.NewFromConfig(awsCfg), cfg.secretARN); err != nil {
			return nil, err
		}
	}
	var api alert.MetricPutter
	if cfg.alert.Mode == alert.ModeAPI || cfg.alert.Mode == alert.ModeBoth {
		api = cloudwatch.NewFromConfig(awsCfg)
	}
	pub, err := alert.NewPublisher(cfg.alert, api, os.Stdout)
	if err != nil {
		return nil, err
	}
	ddb := dynamodb.NewFromConfig(awsCfg)
	// Asked again every indexRefresh, so that a GSI added while the
	// container lives is analysed without a restart.
	schemas := keyschema.NewRefreshingCache(ddb, indexRefresh, time.Now)
	h, err := newHandler(cfg.detector, cfg.partitionKey, cfg.indexes, schemas, pub, log, time.Now)
	if err != nil {
		return nil, err
	}
	if h.history, err = newHistoryStore(cfg.history, ddb, cfg.alert.Namespace, log); err != nil {
		return nil, err
	}
	h.notify = newNotifier(cfg.notify, func() topicPublisher { return sns.NewFromConfig(awsCfg) }, cfg.detector.PartitionLimit, cfg.alert.Namespace, log)
	return h, nil
}

// config is the function's configuration: every variable of envVars, read
// by configFromEnv and nowhere else.
type config struct {
	detector     detector.Config // the thresholds: HOTKEYS_WINDOW, HOTKEYS_SHARE_THRESHOLD, ... (fieldVars)
	alert        alert.Config    // HOTKEYS_NAMESPACE, HOTKEYS_METRICS, HOTKEYS_TOP
	partitionKey string          // HOTKEYS_PARTITION_KEY; "": DescribeTable
	indexes      indexMode       // HOTKEYS_INDEXES
	secretARN    string          // HOTKEYS_KEY_REDACTION_SECRET_ARN under HOTKEYS_KEY_REDACTION=hash; "": keys not redacted
	history      historyConfig   // HOTKEYS_HISTORY_TABLE ("": off), _RETENTION_DAYS, _WRITE_SHARDS, _WRITE_SPREAD
	notify       notifyConfig    // HOTKEYS_NOTIFY_TOPIC_ARN ("": off), _MAX_PER_INVOCATION
}

// historyConfig is the history store's: the table's settings, which the
// rollup function reads too, and the spread of the writes.
type historyConfig struct {
	envconfig.History
	spread time.Duration // HOTKEYS_HISTORY_WRITE_SPREAD
}

// notifyConfig is the onsets' SNS topic and how many messages one
// invocation sends at most.
type notifyConfig struct {
	topic string
	max   int
}

// configFromEnv reads every variable of envVars. An error names the
// variable; one about the thresholds or the metrics wraps
// detector.ErrConfig (or alert's sentinels), as the same mistake made with
// a flag of the CLI does.
func configFromEnv(getenv func(string) string) (config, error) {
	cfg := config{partitionKey: getenv("HOTKEYS_PARTITION_KEY")}
	var err error
	if cfg.detector, cfg.alert, err = thresholdsFromEnv(getenv); err != nil {
		return cfg, err
	}
	if cfg.secretARN, err = redactionFromEnv(getenv); err != nil {
		return cfg, err
	}
	if cfg.indexes, err = indexesFromEnv(getenv); err != nil {
		return cfg, err
	}
	if cfg.history, err = historyFromEnv(getenv); err != nil {
		return cfg, err
	}
	if cfg.notify, err = notifyFromEnv(getenv); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// notifyFromEnv reads HOTKEYS_NOTIFY_TOPIC_ARN and
// HOTKEYS_NOTIFY_MAX_PER_INVOCATION.
func notifyFromEnv(getenv func(string) string) (notifyConfig, error) {
	c := notifyConfig{topic: getenv("HOTKEYS_NOTIFY_TOPIC_ARN"), max: DefaultNotifyMaxPerInvocation}
	if v := getenv("HOTKEYS_NOTIFY_MAX_PER_INVOCATION"); v != "" {
		n, ok := envconfig.Whole(v, 1, 100)
		if !ok {
			return c, fmt.Errorf("HOTKEYS_NOTIFY_MAX_PER_INVOCATION=%q: want a whole number of messages, 1 to 100", v)
		}
		c.max = n
	}
	if c.topic != "" && (!strings.HasPrefix(c.topic, "arn:") || !strings.Contains(c.topic, ":sns:")) {
		return c, fmt.Errorf("HOTKEYS_NOTIFY_TOPIC_ARN=%q: want an SNS topic ARN, arn:aws:sns:REGION:ACCOUNT:NAME", c.topic)
	}
	return c, nil
}

// historyFromEnv reads HOTKEYS_HISTORY_TABLE, _RETENTION_DAYS,
// _WRITE_SHARDS and _WRITE_SPREAD.
func historyFromEnv(getenv func(string) string) (historyConfig, error) {
	h, err := envconfig.HistoryFromEnv(getenv)
	c := historyConfig{History: h}
	if err != nil {
		return c, err
	}
	if v := getenv("HOTKEYS_HISTORY_WRITE_SPREAD"); v != "" {
		d, ok := envconfig.Seconds(v)
		if !ok || d < 0 || d > 20*time.Second {
			return c, fmt.Errorf("HOTKEYS_HISTORY_WRITE_SPREAD=%q: want 0s to 20s, such as 4s", v)
		}
		c.spread = d
	}
	return c, nil
}

// fieldVar binds a variable to the field of a detector.Config it sets.
type fieldVar struct {
	name  string
	field any // a pointer to the field: *float64, *int or *time.Duration
}

// fieldVars binds the variables that set fields of c to those fields, by
// address, so that a renamed field does not compile: thresholdsFromEnv
// reads the numbers through it, and envError words a validation error in
// the variables (HOTKEYS_WINDOW sets Lateness too).
func fieldVars(c *detector.Config) []fieldVar {
	return []fieldVar{
		{"HOTKEYS_WINDOW", &c.Window},
		{"HOTKEYS_WINDOW", &c.Lateness},
		{"HOTKEYS_SHARE_THRESHOLD", &c.ShareThreshold},
		{"HOTKEYS_MIN_WCU_PER_SECOND", &c.MinWCUPerSecond},
		{"HOTKEYS_CRITICAL_WCU_PER_SECOND", &c.CriticalWCUPerSecond},
		{"HOTKEYS_PARTITION_LIMIT", &c.PartitionLimit},
		{"HOTKEYS_SATURATION_FRACTION", &c.SaturationFraction},
		{"HOTKEYS_TOP", &c.Top},
		{"HOTKEYS_SATURATION_SECONDS", &c.SaturationSeconds},
	}
}

// thresholdsFromEnv reads the detector's thresholds (fieldVars) and the
// metrics' settings.
//
// Long because it reads the variables in turn, each with its own message.
func thresholdsFromEnv(getenv func(string) string) (detector.Config, alert.Config, error) {
	cfg := detector.DefaultConfig()
	acfg := alert.DefaultConfig()
	bad := func(name, val string, err error) error {
		return fmt.Errorf("%s=%q: %w", name, val, err)
	}
	if v := getenv("HOTKEYS_WINDOW"); v != "" {
		d, ok := envconfig.Seconds(v)
		if !ok {
			return cfg, acfg, bad("HOTKEYS_WINDOW", v, fmt.Errorf("%w: want a duration such as 60s or 5m", detector.ErrConfig))
		}
		cfg.Window, cfg.Lateness = d, d
	}
	for _, f := range fieldVars(&cfg) {
		p, ok := f.field.(*float64)
		if !ok {
			continue
		}
		if v := getenv(f.name); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return cfg, acfg, bad(f.name, v, fmt.Errorf("%w: not a number", detector.ErrConfig))
			}
			*p = x
		}
	}
	if v := getenv("HOTKEYS_TOP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cfg, acfg, bad("HOTKEYS_TOP", v, fmt.Errorf("%w: not a whole number", detector.ErrConfig))
		}
		cfg.Top, acfg.Top = n, n
	}
	if v := getenv("HOTKEYS_SATURATION_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cfg, acfg, bad("HOTKEYS_SATURATION_SECONDS", v, fmt.Errorf("%w: not a whole number of seconds", detector.ErrConfig))
		}
		cfg.SaturationSeconds = n
	}
	if err := cfg.Validate(); err != nil {
		return cfg, acfg, envError(err)
	}
	if v := getenv("HOTKEYS_NAMESPACE"); v != "" {
		acfg.Namespace = v
	}
	if v := getenv("HOTKEYS_METRICS"); v != "" {
		m, err := alert.ParseMode(v)
		if err != nil {
			return cfg, acfg, bad("HOTKEYS_METRICS", v, err)
		}
		acfg.Mode = m
	}
	if acfg.Top > alert.MaxTop {
		return cfg, acfg, bad("HOTKEYS_TOP", strconv.Itoa(acfg.Top), fmt.Errorf("%w: at most %d keys are published per window", alert.ErrConfig, alert.MaxTop))
	}
	if err := acfg.Validate(); err != nil {
		return cfg, acfg, fmt.Errorf("HOTKEYS_NAMESPACE or HOTKEYS_METRICS: %w", err)
	}
	return cfg, acfg, nil
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

// envError words a validation error in the variables that set the fields
// it names (fieldVars): "detector: invalid configuration:
// HOTKEYS_SHARE_THRESHOLD 2: want a fraction in (0, 1], e.g. 0.10". A field
// no variable sets keeps its Go name.
func envError(err error) error {
	var fe *detector.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	var c detector.Config
	names := map[any]string{}
	for _, f := range fieldVars(&c) {
		names[f.field] = f.name
	}
	return fmt.Errorf("%w: %s", detector.ErrConfig, fe.Message(&c, names))
}
