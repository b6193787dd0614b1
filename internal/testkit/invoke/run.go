package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakesecretsmanager"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
	"github.com/hotkeys-dev/hotkeys/record"
)

// run starts the local services and the emulator, posts the event, prints
// what came back, and stops everything.
func (inv *invocation) run(ctx context.Context, stdout, stderr io.Writer) int {
	inv.header(stderr)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "invoke: %v\n", err)
		return exitInternal
	}
	for _, f := range []struct{ path, how string }{{inv.o.bootstrap, "make invoke builds it"}, {inv.o.rie, "make rie builds it"}} {
		if _, err := os.Stat(f.path); err != nil {
			return fail(fmt.Errorf("%w (%s)", err, f.how))
		}
	}
	home, err := os.MkdirTemp("", "hotkeys-invoke-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(home)
	aws, err := startNoAccount()
	if err != nil {
		return fail(err)
	}
	defer aws.Close()
	secrets := ""
	if inv.secret != nil {
		sm := fakesecretsmanager.New()
		defer sm.Close()
		sm.PutString(inv.secret.arn, inv.secret.value)
		secrets = sm.URL
	}
	em, err := rie.Start(ctx, rie.Config{RIE: inv.o.rie, Bootstrap: inv.o.bootstrap, Env: inv.lambdaEnv(home, aws.URL, secrets)})
	if err != nil {
		return fail(err)
	}
	defer em.Close()
	timeout, _ := strconv.Atoi(inv.timeout)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout+30)*time.Second)
	defer cancel()
	resp, err := em.Invoke(ctx, inv.event)
	if err != nil {
		fmt.Fprintf(stderr, "invoke: the function's output:\n%s", em.Output())
		return fail(err)
	}
	peak, peakErr := em.PeakMemory()
	return inv.report(resp, em.Output(), peak, peakErr, stdout, stderr)
}

// lambdaEnv is the whole environment of the emulator and the function:
// what Lambda sets for a provided.al2023 function, the template's
// variables, and every AWS endpoint on this machine.
func (inv *invocation) lambdaEnv(home, noAccountURL, secretsURL string) []string {
	env := map[string]string{
		"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TZ": ":UTC", "LANG": "en_US.UTF-8",
		"_HANDLER": "bootstrap", "LAMBDA_TASK_ROOT": filepath.Dir(inv.o.bootstrap),
		"AWS_LAMBDA_FUNCTION_NAME": localFunctionName, "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
		"AWS_LAMBDA_FUNCTION_TIMEOUT": inv.timeout, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": inv.memoryMB,
		"AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/" + localFunctionName, "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
		"AWS_REGION": inv.region, "AWS_DEFAULT_REGION": inv.region,
		// No account: dummy credentials, none of the developer's files,
		// and every endpoint on this machine.
		"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_CONFIG_FILE": filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "none"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL": noAccountURL,
	}
	if inv.o.dynamoDB != "" {
		env["AWS_ENDPOINT_URL_DYNAMODB"] = inv.o.dynamoDB
	}
	if secretsURL != "" {
		env["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = secretsURL
	}
	maps.Copy(env, inv.env)
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	return list
}

// header says what runs, with which parameters and why.
func (inv *invocation) header(w io.Writer) {
	fmt.Fprintf(w, "invoke: %s of %s under the Lambda Runtime Interface Emulator, no AWS account; event %s (%d bytes)\n",
		inv.o.function, inv.o.template, inv.o.event, len(inv.event))
	if inv.o.state != "" {
		fmt.Fprintf(w, "invoke: the event's state is the one %s returned\n", inv.o.state)
	}
	fmt.Fprintln(w, "invoke: parameters: template.yaml's defaults, except")
	for _, p := range inv.params {
		if p.from == fromTemplate {
			continue
		}
		why := p.from
		if p.why != "" {
			why += ": " + p.why
		}
		fmt.Fprintf(w, "invoke:   %-22s (%s)\n", p.name+"="+p.value, why)
	}
	if inv.secret != nil {
		how := "HOTKEYS_KEY_REDACTION_SECRET"
		if inv.secret.random {
			how = "a random one (set HOTKEYS_KEY_REDACTION_SECRET for the hashes `hotkeys hash-key` prints)"
		}
		fmt.Fprintf(w, "invoke: the key-redaction secret %s is served by a local Secrets Manager: %s\n", inv.secret.arn, how)
	}
	if t := inv.env["HOTKEYS_HISTORY_TABLE"]; t != "" {
		where := ", but without DYNAMODB the write is denied: the function logs it and goes on"
		if inv.o.dynamoDB != "" {
			where = " at " + inv.o.dynamoDB + ", which must hold it (key: day (S, HASH), window (S, RANGE))"
		}
		fmt.Fprintf(w, "invoke: History=on: window summaries go to table %s%s\n", t, where)
	}
}

// report prints the response on stdout (and to -out), then the EMF lines,
// the other log lines, the bootstrap's peak memory and what the window
// flagged on stderr. It returns the exit status.
func (inv *invocation) report(resp rie.Response, output string, peak int64, peakErr error, stdout, stderr io.Writer) int {
	body := resp.Body
	if len(body) > 0 && body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	stdout.Write(body)
	if inv.o.out != "" {
		if err := os.WriteFile(inv.o.out, resp.Body, 0o644); err != nil {
			fmt.Fprintf(stderr, "invoke: OUT: %v\n", err)
			return exitInternal
		}
	}
	out := splitOutput(output)
	if len(out.emf) == 0 {
		fmt.Fprintln(stderr, "invoke: EMF: none")
	} else {
		fmt.Fprintf(stderr, "invoke: EMF, %s (the metrics CloudWatch Logs extracts from them):\n", lines(len(out.emf)))
	}
	for _, l := range out.emf {
		fmt.Fprintln(stderr, l)
	}
	fmt.Fprintf(stderr, "invoke: log, %s:\n", lines(len(out.logs)))
	for _, l := range out.logs {
		fmt.Fprintln(stderr, l)
	}
	if peakErr == nil {
		fmt.Fprintf(stderr, "invoke: the bootstrap's peak memory (VmHWM) is %.1f MiB of %s MB; REPORT's \"Max Memory Used\" is the configured size, not a measurement\n",
			float64(peak)/(1<<20), inv.memoryMB)
	}
	if err := resp.Err(); err != nil {
		fmt.Fprintf(stderr, "invoke: the function failed: %v\n", failure(err))
		inv.hint(output+err.Error(), stderr)
		return exitFailed
	}
	inv.summary(out, resp.Body, stderr)
	if inv.allMalformed(stderr) {
		return exitAllMalformed
	}
	return exitOK
}

// allMalformed says, loudly, when every record of the batch was
// malformed: the function skipped them all, as it must (a malformed record
// never blocks a shard), and the invocation "succeeded" having analysed
// nothing. The records are counted by the function's own decoder (package
// record) with the partition key the function was given; the most common
// cause here is a sample whose table is not keyed PK, the key make invoke
// sets, and the first record's error names the attributes it has.
func (inv *invocation) allMalformed(w io.Writer) bool {
	dec, err := record.NewDecoder(record.Config{PartitionKey: inv.env["HOTKEYS_PARTITION_KEY"]})
	if err != nil {
		return false
	}
	var records, malformed int
	var first error
	err = dec.Decode(inv.event, record.Visitor{
		Record: func(*record.Record) error { records++; return nil },
		Malformed: func(m *record.Malformed) error {
			malformed++
			if first == nil {
				first = m.Err
			}
			return nil
		},
	})
	if err != nil || records > 0 || malformed == 0 {
		return false // a lookup of the key, or a payload the function said was not JSON
	}
	fmt.Fprintf(w, "invoke: EVERY RECORD WAS MALFORMED: the function skipped all %d records of the batch (it never fails a batch for its records): nothing was analysed\n", malformed)
	fmt.Fprintf(w, "invoke: the first one: %v\n", first)
	var mk *record.MissingKeyError
	if errors.As(first, &mk) {
		fmt.Fprintf(w, "invoke: make invoke sets PartitionKeyName=%s, the key of most samples; this table's keys are %s: "+
			"PARAMS=\"PartitionKeyName=%s\", or PARAMS=\"PartitionKeyName=\" to have the function look it up (docs/events.md)\n",
			mk.PartitionKey, strings.Join(mk.Keys, " and "), mk.Keys[0])
	}
	return true
}

// output is the function's output, sorted.
type output struct {
	emf, logs      []string
	found, windows []map[string]any // findings lines; EMF lines of a table's or an index's window
}

func splitOutput(s string) output {
	var out output
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var obj map[string]any
		isJSON := json.Unmarshal([]byte(line), &obj) == nil
		switch {
		case isJSON && obj["_aws"] != nil:
			out.emf = append(out.emf, line)
			if obj["StreamRecords"] != nil && obj["PartitionKey"] == nil {
				out.windows = append(out.windows, obj)
			}
			continue
		case isJSON && obj["msg"] == "hot partition key":
			out.found = append(out.found, obj)
		}
		out.logs = append(out.logs, line)
	}
	return out
}

// summary says what was published and flagged, or that the window is
// still open.
func (inv *invocation) summary(out output, response []byte, w io.Writer) {
	for _, win := range out.windows {
		what := fmt.Sprint(win["TableName"])
		if index, ok := win["IndexName"]; ok {
			what += " index " + fmt.Sprint(index)
		}
		fmt.Fprintf(w, "invoke: published %s, window at %s: %v records, %v WCU, malformed %v, TTL deletes %v, hot keys %v\n",
			what, time.UnixMilli(int64(asFloat(dig(win, "_aws", "Timestamp")))).UTC().Format(time.RFC3339),
			win["StreamRecords"], win["WriteCapacityUnits"], win["MalformedRecords"], win["TTLDeletes"], win["HotKeys"])
	}
	for _, f := range out.found {
		fmt.Fprintf(w, "invoke: flagged %v in %v: %v, %v, %v WCU, %.0f%% of the window's WCU, peak %v WCU/s (window %v)\n",
			f["key"], f["table"], f["severity"], f["pattern"], f["wcu"], 100*asFloat(f["share"]), f["peak_wcu_per_second"], f["window_start"])
	}
	var r struct {
		State map[string]string `json:"state"`
	}
	switch {
	case json.Unmarshal(response, &r) == nil && len(r.State) > 0:
		size := 0
		for k, v := range r.State {
			size += len(k) + len(v)
		}
		next := "keep the response (OUT=FILE) and give it to the window's next batch with STATE=FILE"
		if inv.o.out != "" {
			next = "STATE=" + inv.o.out + " gives it to the window's next batch"
		}
		fmt.Fprintf(w, "invoke: the window is still open: its summary travels in the response's state (%d bytes); %s\n", size, next)
	case len(out.found) == 0:
		fmt.Fprintln(w, "invoke: no key flagged")
	}
}

// hint names the template parameter behind each variable a failure names.
func (inv *invocation) hint(text string, w io.Writer) {
	for _, v := range slices.Sorted(maps.Keys(inv.paramOf)) {
		if strings.Contains(text, v) {
			p := inv.paramOf[v]
			fmt.Fprintf(w, "invoke: %s is the template's %s: set it with PARAMS=\"%s=...\" (-parameter-overrides)\n", v, p, p)
		}
	}
}

// failure explains a failed invocation.
func failure(err error) string {
	switch {
	case errors.Is(err, rie.ErrTimedOut):
		return err.Error() + " (the template's Timeout; the emulator stopped the bootstrap)"
	case errors.Is(err, rie.ErrInitFailed):
		return "its cold start failed: the log above says why (a bad parameter value, a secret it cannot read)"
	}
	return err.Error()
}

// lines says "1 line", "2 lines".
func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}

func asFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}
