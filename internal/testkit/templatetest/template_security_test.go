package templatetest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// variants are parameter sets that switch the template's conditions.
var variants = []struct {
	name   string
	params map[string]string
}{
	{"defaults", nil},
	{"partition key given, EMF, e-mail", map[string]string{"PartitionKeyName": "pk", "MetricsMode": "emf", "AlarmEmail": "oncall@example.com"}},
	{"partition key given, indexes off", map[string]string{"PartitionKeyName": "pk", "IndexAnalysis": "off"}},
	{"partition key looked up, indexes off", map[string]string{"IndexAnalysis": "off"}},
	{"partition key given, indexes on", map[string]string{"PartitionKeyName": "pk", "IndexAnalysis": "on"}},
	{"indexes auto, named", map[string]string{"IndexNames": "GSI1,by-status"}},
	{"metrics off", map[string]string{"MetricsMode": "off"}},
	{"both, redaction with a generated secret", map[string]string{"MetricsMode": "both", "KeyRedaction": "hash"}},
	{"redaction with an existing secret", map[string]string{"KeyRedaction": "hash", "KeyRedactionSecretArn": existingSecretArn}},
	{"redaction with an existing secret under a customer key", map[string]string{"KeyRedaction": "hash", "KeyRedactionSecretArn": existingSecretArn, "KeyRedactionSecretKmsKeyArn": customerKeyArn}},
	{"no redaction, secret parameters left over", map[string]string{"KeyRedactionSecretArn": existingSecretArn, "KeyRedactionSecretKmsKeyArn": customerKeyArn}},
	{"history", map[string]string{"History": "on", "HistoryRetentionDays": "7"}},
	{"onset notifications off", map[string]string{"NotifyTopicArn": "off"}},
	{"onset notifications to a topic of the user's", map[string]string{"NotifyTopicArn": ownTopicArn}},
	{"Kinesis source", kinesisSource},
	{"Kinesis source, history, indexes on, API metrics", map[string]string{"StreamSource": "kinesis", "KinesisStreamArn": testKinesisArn, "History": "on", "IndexAnalysis": "on", "MetricsMode": "api"}},
	{"table stream source, a Kinesis ARN left over", map[string]string{"KinesisStreamArn": testKinesisArn}},
}

// kinesisSource reads the table's Kinesis destination instead of its stream.
var kinesisSource = map[string]string{"StreamSource": "kinesis", "KinesisStreamArn": testKinesisArn}

const (
	existingSecretArn = "arn:aws:secretsmanager:" + cfn.Region + ":" + cfn.Account + ":secret:team/hotkeys-key-AbC123"
	customerKeyArn    = "arn:aws:kms:" + cfn.Region + ":" + cfn.Account + ":key/1234abcd-12ab-34cd-56ef-1234567890ab"
	// A topic in another account: the function may publish to it, and to
	// nothing else.
	ownTopicArn = "arn:aws:sns:us-east-1:210987654321:oncall"
)

// alarmTopicArn is the ARN the test stack's alarm topic gets.
const alarmTopicArn = "arn:aws:sns:" + cfn.Region + ":" + cfn.Account + ":" + cfn.StackName + "-hotkeys-alarms"

// policyStatement is one evaluated IAM statement and where it comes from.
type policyStatement struct {
	where string
	m     map[string]any
}

func (st policyStatement) list(key string) []string {
	switch v := st.m[key].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			out[i], _ = e.(string)
		}
		return out
	}
	return nil
}

// statements walks an evaluated resource and returns every policy
// statement in it: role policies, trust policies, key policies, and any
// other document with a Statement.
func statements(where string, v any) []policyStatement {
	var out []policyStatement
	switch v := v.(type) {
	case map[string]any:
		if list, ok := v["Statement"].([]any); ok {
			for i, s := range list {
				if m, ok := s.(map[string]any); ok {
					out = append(out, policyStatement{fmt.Sprintf("%s statement %d (%v)", where, i, m["Sid"]), m})
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, statements(where+"."+k, v[k])...)
		}
	case []any:
		for i, e := range v {
			out = append(out, statements(fmt.Sprintf("%s[%d]", where, i), e)...)
		}
	}
	return out
}

var serviceWildcard = regexp.MustCompile(`^[a-z0-9-]+:\*$`)

// TestTemplateIAMIsLeastPrivilege checks every policy in the template: no
// Allow of "*" or "service:*", and the function's role grants exactly what
// it needs, each on the narrowest resource IAM supports.
func TestTemplateIAMIsLeastPrivilege(t *testing.T) {
	tmpl := readTemplate(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			s := deploy(t, tmpl, v.params)
			checkNoWildcardAllows(t, s)
			checkFunctionRole(t, s)
			checkAlarmTopicKey(t, s)
		})
	}
}

func checkNoWildcardAllows(t *testing.T, s *cfn.Stack) {
	t.Helper()
	for _, id := range slices.Sorted(maps.Keys(s.Template()["Resources"].(map[string]any))) {
		r, err := s.Resource(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range statements(id, r) {
			if st.m["Effect"] != "Allow" {
				continue
			}
			if _, ok := st.m["NotAction"]; ok {
				t.Errorf("%s: Allow with NotAction", st.where)
			}
			if _, ok := st.m["NotResource"]; ok {
				t.Errorf("%s: Allow with NotResource", st.where)
			}
			for _, a := range st.list("Action") {
				if a == "*" || serviceWildcard.MatchString(a) {
					t.Errorf("%s: allows %q", st.where, a)
				}
			}
		}
	}
}

// checkFunctionRole compares the function role's grants, action by action,
// with what the function needs for the parameters of s.
func checkFunctionRole(t *testing.T, s *cfn.Stack) {
	t.Helper()
	fn := properties(mustResource(t, s, functionID))
	// With no Role, SAM would create one and attach
	// AWSLambdaDynamoDBExecutionRole: the stream actions on "*".
	if fn["Role"] != cfn.GetAtt("HotKeysFunctionRole", "Arn") {
		t.Errorf("function Role = %v, want the template's own role", fn["Role"])
	}
	for _, k := range []string{"Policies", "PermissionsBoundary"} {
		if _, ok := fn[k]; ok {
			t.Errorf("function sets %s: SAM would add policies to the role", k)
		}
	}
	if lc, _ := fn["LoggingConfig"].(map[string]any); lc["LogGroup"] != cfn.Ref("HotKeysLogGroup") {
		t.Errorf("function logs to %v, not to the log group its role may write", lc["LogGroup"])
	}

	role := properties(mustResource(t, s, "HotKeysFunctionRole"))
	if arns, _ := role["ManagedPolicyArns"].([]any); len(arns) > 0 {
		t.Errorf("role has managed policies %v", arns)
	}
	trust := statements("trust", role["AssumeRolePolicyDocument"])
	if len(trust) != 1 || fmt.Sprint(trust[0].m["Principal"]) != "map[Service:lambda.amazonaws.com]" ||
		!slices.Equal(trust[0].list("Action"), []string{"sts:AssumeRole"}) {
		t.Errorf("trust policy %v, want lambda.amazonaws.com may sts:AssumeRole", trust)
	}

	got := map[string][]string{}
	conditions := map[string]any{}
	for _, st := range statements("role", role["Policies"]) {
		if st.m["Effect"] != "Allow" {
			continue
		}
		for _, a := range st.list("Action") {
			got[a] = append(got[a], st.list("Resource")...)
			if c, ok := st.m["Condition"]; ok {
				conditions[a] = c
			}
		}
	}
	for a := range got {
		slices.Sort(got[a])
	}
	want := map[string][]string{
		"sqs:SendMessage":      {cfn.GetAtt("DeadLetterQueue", "Arn")},
		"logs:CreateLogStream": {cfn.GetAtt("HotKeysLogGroup", "Arn")},
		"logs:PutLogEvents":    {cfn.GetAtt("HotKeysLogGroup", "Arn")},
	}
	// The source: the table's stream, or the Kinesis stream through the
	// stack's own consumer, never both.
	switch src := s.Param("StreamSource"); src {
	case "dynamodb":
		for _, a := range []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"} {
			want[a] = []string{testStreamArn}
		}
		// No resource-level permissions exist for ListStreams.
		want["dynamodb:ListStreams"] = []string{"*"}
	case "kinesis":
		// Lambda's documentation (Kinesis, execution role permissions):
		// the stream's actions on the stream, SubscribeToShard (resource
		// type consumer) on the enhanced fan-out consumer.
		for _, a := range []string{"kinesis:DescribeStream", "kinesis:DescribeStreamSummary", "kinesis:GetRecords", "kinesis:GetShardIterator", "kinesis:ListShards"} {
			want[a] = []string{s.Param("KinesisStreamArn")}
		}
		want["kinesis:SubscribeToShard"] = []string{cfn.GetAtt("KinesisConsumer", "ConsumerARN")}
	default:
		t.Fatalf("StreamSource %q", src)
	}
	// DescribeTable gives the partition key when it is not a parameter,
	// and the indexes unless their analysis is off: that one table only.
	if s.Param("PartitionKeyName") == "" || s.Param("IndexAnalysis") != "off" {
		want["dynamodb:DescribeTable"] = []string{"arn:aws:dynamodb:" + cfn.Region + ":" + cfn.Account + ":table/" + testTable}
	}
	if s.Param("History") == "on" {
		// One table, one action: the window summaries, and nothing else.
		want["dynamodb:PutItem"] = []string{cfn.GetAtt("HistoryTable", "Arn")}
	}
	mode, err := alert.ParseMode(s.Param("MetricsMode"))
	if err != nil {
		t.Fatal(err)
	}
	if mode == alert.ModeAPI || mode == alert.ModeBoth {
		want["cloudwatch:PutMetricData"] = []string{"*"}
	}
	// The onset notification: sns:Publish on the one topic the function
	// is given, the alarm topic by default.
	switch topic := s.Param("NotifyTopicArn"); topic {
	case "alarm-topic":
		want["sns:Publish"] = []string{alarmTopicArn}
	case "off":
	default:
		want["sns:Publish"] = []string{topic}
	}
	// The key-redaction secret: that one secret, by its full ARN.
	if s.Param("KeyRedaction") == "hash" {
		switch arn := s.Param("KeyRedactionSecretArn"); arn {
		case "":
			want["secretsmanager:GetSecretValue"] = []string{cfn.Ref("KeyRedactionSecret")}
		default:
			want["secretsmanager:GetSecretValue"] = []string{arn}
		}
		if key := s.Param("KeyRedactionSecretKmsKeyArn"); key != "" {
			want["kms:Decrypt"] = []string{key}
		}
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the function's role grants\n%v\nwant\n%v", got, want)
	}
	if _, ok := want["cloudwatch:PutMetricData"]; ok {
		c := fmt.Sprint(conditions["cloudwatch:PutMetricData"])
		if w := fmt.Sprint(map[string]any{"StringEquals": map[string]any{"cloudwatch:namespace": alert.DefaultNamespace}}); c != w {
			t.Errorf("PutMetricData condition %s, want %s", c, w)
		}
	}
	if _, ok := want["kms:Decrypt"]; ok {
		c := fmt.Sprint(conditions["kms:Decrypt"])
		if w := fmt.Sprint(map[string]any{"StringEquals": map[string]any{"kms:ViaService": "secretsmanager." + cfn.Region + ".amazonaws.com"}}); c != w {
			t.Errorf("kms:Decrypt condition %s, want %s: the key only through Secrets Manager", c, w)
		}
	}
	for a := range got {
		if _, ok := conditions[a]; ok && a != "cloudwatch:PutMetricData" && a != "kms:Decrypt" {
			t.Errorf("%s has a condition the test does not expect", a)
		}
		for _, r := range got[a] {
			if strings.Contains(r, "*") && a != "cloudwatch:PutMetricData" && a != "dynamodb:ListStreams" {
				t.Errorf("%s is granted on %q: a wildcard", a, r)
			}
		}
	}
}

// checkAlarmTopicKey checks that the alarm topic is encrypted with a key
// CloudWatch may use for that topic only, and that the key's administrators
// cannot read with it.
func checkAlarmTopicKey(t *testing.T, s *cfn.Stack) {
	t.Helper()
	topic := properties(mustResource(t, s, "AlarmTopic"))
	if topic["KmsMasterKeyId"] != cfn.Ref("AlarmTopicKey") {
		t.Errorf("alarm topic KmsMasterKeyId = %v, want the template's key (CloudWatch cannot use alias/aws/sns)", topic["KmsMasterKeyId"])
	}
	topicArn := "arn:aws:sns:" + cfn.Region + ":" + cfn.Account + ":" + topic["TopicName"].(string)
	key := properties(mustResource(t, s, "AlarmTopicKey"))
	if key["EnableKeyRotation"] != true {
		t.Error("alarm topic key rotation is off")
	}
	// Who publishes to the topic may use the key for it alone, and only to
	// encrypt and decrypt its messages.
	publishes := func(st policyStatement, who string) {
		if a := st.list("Action"); !slices.Equal(a, []string{"kms:Decrypt", "kms:GenerateDataKey*"}) {
			t.Errorf("%s: %s may %v, want kms:Decrypt and kms:GenerateDataKey*", st.where, who, a)
		}
		c := fmt.Sprint(st.m["Condition"])
		if w := fmt.Sprint(map[string]any{"StringEquals": map[string]any{"kms:EncryptionContext:aws:sns:topicArn": topicArn}}); c != w {
			t.Errorf("%s: condition %s, want %s", st.where, c, w)
		}
	}
	cloudwatch, function := 0, 0
	for _, st := range statements("key", key["KeyPolicy"]) {
		principal := fmt.Sprint(st.m["Principal"])
		switch principal {
		case "map[AWS:" + cfn.GetAtt("HotKeysFunctionRole", "Arn") + "]":
			// A publisher to an encrypted topic needs both (Amazon SNS,
			// Key management): the function's onset notifications.
			function++
			publishes(st, "the function")
		case "map[Service:cloudwatch.amazonaws.com]":
			cloudwatch++
			publishes(st, "CloudWatch")
		case "map[AWS:arn:aws:iam::" + cfn.Account + ":root]":
			for _, a := range st.list("Action") {
				if slices.Contains([]string{"kms:Decrypt", "kms:Encrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"}, a) || a == "kms:*" {
					t.Errorf("%s: the account's administrators may %s", st.where, a)
				}
			}
		default:
			t.Errorf("%s: unexpected principal %s", st.where, principal)
		}
	}
	if cloudwatch != 1 {
		t.Errorf("%d key policy statements for CloudWatch, want 1", cloudwatch)
	}
	if want := s.Param("NotifyTopicArn") == "alarm-topic"; (function == 1) != want || function > 1 {
		t.Errorf("NotifyTopicArn %q: %d key policy statements for the function, want one exactly when it publishes to the alarm topic", s.Param("NotifyTopicArn"), function)
	}
	if topicArn != alarmTopicArn {
		t.Errorf("alarm topic ARN %s, the role is granted %s", topicArn, alarmTopicArn)
	}
}

// mappingIDs are the function's two event source mappings: exactly one
// exists, by StreamSource (a SAM event cannot take a Condition).
var mappingIDs = map[string]string{"dynamodb": "TableStreamMapping", "kinesis": "KinesisMapping"}

// sourceMapping returns the one event source mapping of s, checking that
// the other source has none, that the function has no SAM event besides
// it, and that the mapping invokes the function.
func sourceMapping(t *testing.T, s *cfn.Stack) map[string]any {
	t.Helper()
	if events, ok := properties(mustResource(t, s, functionID))["Events"]; ok {
		t.Fatalf("the function has SAM events %v: they cannot be conditional; the mappings are resources", events)
	}
	var esm map[string]any
	for src, id := range mappingIDs {
		r, err := s.Resource(id)
		if err != nil {
			t.Fatal(err)
		}
		if want := s.Param("StreamSource") == src; (r != nil) != want {
			t.Fatalf("StreamSource %s: mapping %s exists = %v", s.Param("StreamSource"), id, r != nil)
		}
		if r != nil {
			esm = properties(r)
		}
	}
	if esm["FunctionName"] != cfn.Ref(functionID) {
		t.Errorf("mapping FunctionName %v, want the function", esm["FunctionName"])
	}
	if c, err := s.Resource("KinesisConsumer"); err != nil || (c != nil) != (s.Param("StreamSource") == "kinesis") {
		t.Errorf("StreamSource %s: Kinesis consumer %v (%v)", s.Param("StreamSource"), c, err)
	}
	return esm
}

// TestTemplateEventSourceMapping checks the settings that keep one poison
// record from blocking a shard and keep batches within Lambda's limits,
// for both sources: they differ in their source ARN alone.
func TestTemplateEventSourceMapping(t *testing.T) {
	tmpl := readTemplate(t)
	limits := map[string]string{"BatchSize": "10000", "WindowSeconds": "900", "BatchingWindowSeconds": "300"}
	kinesis := maps.Clone(limits)
	maps.Copy(kinesis, kinesisSource)
	s := deploy(t, tmpl, limits)
	esm := sourceMapping(t, s)
	k := deploy(t, tmpl, kinesis)
	kesm := sourceMapping(t, k)
	if esm["EventSourceArn"] != testStreamArn {
		t.Errorf("table stream mapping reads %v, want the StreamArn parameter", esm["EventSourceArn"])
	}
	if kesm["EventSourceArn"] != cfn.GetAtt("KinesisConsumer", "ConsumerARN") {
		t.Errorf("Kinesis mapping reads %v, want the stack's enhanced fan-out consumer", kesm["EventSourceArn"])
	}
	consumer := properties(mustResource(t, k, "KinesisConsumer"))
	if consumer["StreamARN"] != testKinesisArn {
		t.Errorf("consumer of %v, want the KinesisStreamArn parameter", consumer["StreamARN"])
	}
	if name := fmt.Sprint(consumer["ConsumerName"]); name != cfn.StackName+"-hotkeys" {
		t.Errorf("consumer name %s, want one per stack (%s-hotkeys)", name, cfn.StackName)
	}
	same := func(m map[string]any) map[string]any {
		m = maps.Clone(m)
		delete(m, "EventSourceArn")
		return m
	}
	if a, b := fmt.Sprint(same(esm)), fmt.Sprint(same(kesm)); a != b {
		t.Errorf("the mappings differ beyond their source:\ntable stream %s\nKinesis      %s", a, b)
	}
	num := func(k string) int {
		t.Helper()
		n, err := strconv.Atoi(cfn.ScalarString(esm[k]))
		if err != nil {
			t.Fatalf("%s = %v: %v", k, esm[k], err)
		}
		return n
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"StartingPosition LATEST", esm["StartingPosition"] == "LATEST"},
		{"BatchSize follows its parameter, at most 10,000", num("BatchSize") == 10000},
		{"TumblingWindowInSeconds follows WindowSeconds, 1-900", num("TumblingWindowInSeconds") == 900},
		{"MaximumBatchingWindowInSeconds follows BatchingWindowSeconds, 0-300", num("MaximumBatchingWindowInSeconds") == 300},
		{"MaximumRetryAttempts finite (not -1) and at most 10,000", num("MaximumRetryAttempts") >= 0 && num("MaximumRetryAttempts") <= 10000},
		{"MaximumRecordAgeInSeconds finite, within the stream's 24 h", num("MaximumRecordAgeInSeconds") >= 60 && num("MaximumRecordAgeInSeconds") <= 86400},
		{"BisectBatchOnFunctionError true", esm["BisectBatchOnFunctionError"] == true},
		{"ReportBatchItemFailures", slices.Contains(esm["FunctionResponseTypes"].([]any), any("ReportBatchItemFailures"))},
		{"OnFailure is the template's queue", fmt.Sprint(esm["DestinationConfig"]) == fmt.Sprint(map[string]any{"OnFailure": map[string]any{"Destination": cfn.GetAtt("DeadLetterQueue", "Arn")}})},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("event source mapping: want %s; got %v", c.what, esm)
		}
	}
	// By default an onset is announced within a second of its records
	// reaching the stream's poller (issue 20): the batching window is at
	// most 1 s.
	if def := cfn.ScalarString(tmpl["Parameters"].(map[string]any)["BatchingWindowSeconds"].(map[string]any)["Default"]); def != "1" && def != "0" {
		t.Errorf("BatchingWindowSeconds defaults to %s s, want at most 1", def)
	}
	if w := toFloat(t, sourceMapping(t, deploy(t, tmpl, nil))["MaximumBatchingWindowInSeconds"]); w > 1 {
		t.Errorf("a default deployment batches for %v s, want at most 1", w)
	}
	// The parameters cannot ask for more than the mapping allows (their
	// patterns admit exactly these ranges: TestTemplateNumberParameters).
	for name, limit := range map[string][2]float64{"BatchSize": {1, 10000}, "WindowSeconds": {1, 900}, "BatchingWindowSeconds": {0, 300}} {
		if p := numericParameterNamed(t, name); p.lo < limit[0] || p.hi > limit[1] {
			t.Errorf("parameter %s allows %v to %v, the mapping %v to %v", name, p.lo, p.hi, limit[0], limit[1])
		}
	}

	q := properties(mustResource(t, s, "DeadLetterQueue"))
	if q["SqsManagedSseEnabled"] != true && q["KmsMasterKeyId"] == nil {
		t.Error("the dead-letter queue is not encrypted")
	}
	if cfn.ScalarString(q["MessageRetentionPeriod"]) != "1209600" {
		t.Errorf("dead-letter queue retention %v s, want 14 days", q["MessageRetentionPeriod"])
	}
}

// toFloat reads a number from the template, and fails the test when it is
// not one: a missing or misspelt bound must not pass a range check.
func toFloat(t *testing.T, v any) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(cfn.ScalarString(v), 64)
	if err != nil {
		t.Fatalf("want a number, got %T %v", v, v)
	}
	return f
}

// TestTemplateAlarms checks how the alarms are wired: to the topic, with
// the parameters' thresholds, and with an evaluation range that a window's
// single, late data point always falls in.
func TestTemplateAlarms(t *testing.T) {
	tmpl := readTemplate(t)
	s := deploy(t, tmpl, map[string]string{"CriticalWCUPerSecond": "750", "ShareThreshold": "0.25", "ClientAlarms": "on", "CriticalRCUPerSecond": "2000", "IndexAnalysis": "on", "History": "on"})
	maxWindow := numericParameterNamed(t, "WindowSeconds").hi
	thresholds := map[string]string{
		"HotKeyCriticalAlarm": "750",
		"HotKeyByKeyAlarm":    "750",
		"HotKeyWarningAlarm":  "0.25",
		// The indexes' (IndexAnalysis on): the same critical rate; the
		// warning counts flagged keys.
		"IndexHotKeyCriticalAlarm": "750",
		"IndexHotKeyByKeyAlarm":    "750",
		"IndexHotKeyWarningAlarm":  "1",
		"MalformedRecordsAlarm":    "0",
		"InternalErrorsAlarm":      "0",
		"ClientThrottledKeyAlarm":  "0",
		"ClientReadHotKeyAlarm":    "2000",
	}
	for _, id := range s.Resources("AWS::CloudWatch::Alarm") {
		p := properties(mustResource(t, s, id))
		for _, k := range []string{"AlarmActions", "OKActions"} {
			if a, _ := p[k].([]any); !slices.Equal(a, []any{cfn.Ref("AlarmTopic")}) {
				t.Errorf("%s %s = %v, want the alarm topic", id, k, p[k])
			}
		}
		if p["TreatMissingData"] != "notBreaching" {
			t.Errorf("%s: TreatMissingData %v, want notBreaching", id, p["TreatMissingData"])
		}
		if desc, _ := p["AlarmDescription"].(string); len(desc) < 40 || len(desc) > 1024 {
			t.Errorf("%s: description of %d bytes, want 40 to 1,024 that say what to do: %q", id, len(desc), desc)
		}
		want, ours := thresholds[id]
		if !ours {
			continue
		}
		if got := cfn.ScalarString(p["Threshold"]); got != want {
			t.Errorf("%s: threshold %s, want %s", id, got, want)
		}
		op := "GreaterThanOrEqualToThreshold"
		if id == "MalformedRecordsAlarm" || id == "InternalErrorsAlarm" || id == "ClientThrottledKeyAlarm" {
			op = "GreaterThanThreshold"
		}
		if p["ComparisonOperator"] != op {
			t.Errorf("%s: %v, want %s", id, p["ComparisonOperator"], op)
		}
		// A window publishes one data point, stamped with its start, after
		// it ends: the range must reach back over the longest window and
		// its delivery, and one point must be enough.
		// A metric-math alarm has its periods in its metrics; judge it by the
		// shortest of them.
		var periods []float64
		if v, ok := p["Period"]; ok {
			periods = append(periods, toFloat(t, v))
		}
		ms, _ := p["Metrics"].([]any)
		for _, m := range ms {
			m := m.(map[string]any)
			if v, ok := m["Period"]; ok {
				periods = append(periods, toFloat(t, v))
			} else if st, ok := m["MetricStat"].(map[string]any); ok {
				periods = append(periods, toFloat(t, st["Period"]))
			}
		}
		if len(periods) == 0 {
			t.Errorf("%s: no Period anywhere", id)
			continue
		}
		period := slices.Min(periods)
		if rng := period * toFloat(t, p["EvaluationPeriods"]); rng < maxWindow+300 {
			t.Errorf("%s: evaluates %v s of data, want at least the longest window (%v s) plus 5 min", id, rng, maxWindow)
		}
		if cfn.ScalarString(p["DatapointsToAlarm"]) != "1" {
			t.Errorf("%s: DatapointsToAlarm %v, want 1", id, p["DatapointsToAlarm"])
		}
	}
	for id := range thresholds {
		if !s.HasResource(id) {
			t.Errorf("no alarm %s", id)
		}
	}

	for _, v := range []struct {
		email string
		want  bool
	}{{"", false}, {"oncall@example.com", true}} {
		s := deploy(t, tmpl, map[string]string{"AlarmEmail": v.email})
		sub, err := s.Resource("AlarmEmailSubscription")
		if err != nil {
			t.Fatal(err)
		}
		if (sub != nil) != v.want {
			t.Errorf("AlarmEmail %q: subscription created = %v", v.email, sub != nil)
		}
		if sub != nil {
			p := properties(sub)
			if p["Endpoint"] != v.email || p["Protocol"] != "email" || p["TopicArn"] != cfn.Ref("AlarmTopic") {
				t.Errorf("subscription %v", p)
			}
		}
	}
	// The client alarms are optional: off by default, and then absent.
	for _, id := range []string{"ClientThrottledKeyAlarm", "ClientReadHotKeyAlarm"} {
		if r, err := deploy(t, tmpl, nil).Resource(id); err != nil || r != nil {
			t.Errorf("%s created by default (%v): it watches applications the stack does not deploy", id, err)
		}
	}
	if !strings.Contains(fmt.Sprint(mustResource(t, s, "ClientThrottledKeyAlarm")), "GROUP BY PartitionKey") {
		t.Error("the client throttled-key alarm does not group by PartitionKey, so it cannot name the key")
	}
	if !strings.Contains(fmt.Sprint(mustResource(t, deploy(t, tmpl, nil), "HotKeyByKeyAlarm")), "GROUP BY PartitionKey") {
		t.Error("the per-key alarm does not group by PartitionKey, so it cannot name the key")
	}
}
