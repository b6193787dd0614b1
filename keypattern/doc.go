// Package keypattern audits a table's key design, pattern by pattern, at
// any traffic level: it maps every partition key to a pattern
// (USER#<uuid>, OPS_LOG, STATUS#<*>), learns which literal parts vary,
// sums each pattern's records, WCU, distinct keys, heaviest keys and time
// bucket in bounded memory, and judges each pattern: single_key,
// time_bucket, dominant_key, low_cardinality or healthy. A pattern of one
// key (OPS_LOG) is a hot partition by definition, whatever today's traffic
// (issue 30; docs/audit.md).
//
// It is pure: no I/O, no clock, no global state, no SDK. Keys come as the
// detector feeds them to sketch, typed: the ddb.KeyType byte ('S', 'N' or
// 'B') and the canonical value; the caller passes sketch.Hash of that too.
//
// # Classes
//
// A Number key is <n>, a Binary key <bytes> (a key of no known type byte
// is taken as Binary). A String key is split into at most 16 parts (the
// last takes the rest), each a literal kept as it is or a value replaced
// by its class:
//
//	<uuid>      8-4-4-4-12 hexadecimal digits, either case
//	<date>      ISO 8601 YYYY-MM-DD, or the month YYYY-MM
//	<datetime>  YYYY-MM-DD then T, t or a space, hh[:mm[:ss[.f…]]] and a
//	            zone Z, ±hh, ±hhmm or ±hh:mm if any (month 1-12, day 1-31,
//	            hour 0-24, minute 0-59, second 0-60)
//	<email>     a local part of letters, digits and . _ % + - starting a
//	            part, '@', two or more labels of letters, digits and '-',
//	            the last (the TLD) two or more letters
//	<n>         ASCII digits
//	<hex>       8 or more hexadecimal digits of one case, with a digit and
//	            a letter (a word such as deadbeef has no digit)
//	<id>        a ULID (26 of Crockford's base32 in one case, first 0-7, two
//	            or more digits), or 16 or more letters and digits with two
//	            or more of each and four or more changes between digit,
//	            lower and upper case (KSUIDs, random identifiers)
//	<*>         a literal part learnt to vary (below)
//
// A date, a datetime or an e-mail is read whole, separators and all, where
// it starts a part and ends at a boundary: the key's end or one of
// # : | / . @ _. Otherwise a part runs to the next separator # : | / . or @.
// '_' and '-' separate only where a value starts or ends: a run holding
// them that is not a UUID is split there, each value in it (<n>, <hex>,
// <id>, <date>…) a part of its own, and the literal pieces between values
// joined back. So OPS_LOG, BRAND_INDEX and snake_case_literal are one
// literal each, while user_123 is user_<n>, SESSION_9f86d081884c7d65 is
// SESSION_<hex> and EVENTS#SHARD_3 is EVENTS#SHARD_<n>. Dotted numbers are
// not a class of their own: 10.0.0.1 is <n>.<n>.<n>.<n>, v1.2.3 v1.<n>.<n>.
// Epoch timestamps are <n>, not time parts. A literal's '<' and '\' are
// escaped with '\' in a pattern, so a literal never reads as a class.
//
// # Learning variable parts
//
// A literal's position is identified by its prefix: for a part after the
// first, the pattern before it and the separator in front of it
// (TENANT#acme and TENANT#globex share "TENANT" + '#'); for the first
// part, its letter case, the separator after it and the class of the part
// after that. A prefix whose literals take 2 distinct values (32 for a
// first part, which names entity types: a single-table design has many,
// and OPS_LOG, BRAND_INDEX must stay apart) is learnt variable for good:
// its literals become <*>, and the patterns that now read the same fold
// into one, their figures merged. So STATUS#ACTIVE, STATUS#PENDING and
// STATUS#CLOSED become STATUS#<*> with 3 distinct keys, a single value
// stays literal, and OPS_LOG stays OPS_LOG. The learnt set is the least
// fixpoint of that rule over the patterns seen, a function of the set of
// keys and not of their order: tables of different shards, merged, settle
// where one table of all their records would, as long as neither dropped
// patterns to other.
//
// # Limits
//
// Config.Patterns patterns are kept (64 by default, at most 256). A key of
// a new pattern once the table is full counts as other, exactly, unless it
// teaches the table a variable part that folds patterns; merges and Trim
// keep the heaviest patterns and count the rest as other. At most
// MaxRules learnt prefixes are kept. A pathological key space (every key a
// new literal shape, random separators and bytes) fills the table with
// its first shapes, learns little, and counts the rest as other: totals
// stay exact, and TestPathologicalKeys measures it (over 98 % of such a
// stream in other). Its cost per record is that of a key never seen: one
// scan of the key.
//
// # Figures
//
// Per pattern (Figures): records and WCU, exact; its share of the table's
// WCU; distinct keys, exact up to 128, then a HyperLogLog of 512 registers
// (±4.6 %, one standard error; see distinct.go); its heaviest keys, by
// weighted Space-Saving with Config.TopKeys counters (Metwally et al.,
// ICDT 2005; merged per Agarwal et al., PODS 2012), each with bounds that
// bracket its true WCU, at most WCU/k apart, and a bound on any other key;
// the share of its WCU that its time part's newest value took, and that
// went to the value current when written; and its ceiling,
// limit ÷ the heaviest key's share (Figures.Ceiling), the limit itself
// for a pattern that is one key. Table.Patterns, given the window's
// sketch.Summary of the same records, tightens the heavy keys' bounds with
// its own.
//
// # Verdicts
//
// Judge is a pure function of a pattern's figures and Thresholds; the
// first verdict that applies wins:
//
//  1. single_key: every part is literal. One key is one partition whatever
//     the traffic, so it is called from the first record: the article's
//     OPS_LOG at a few writes a minute. (A one-tenant window reads
//     TENANT#acme as single_key too, until another tenant writes; rollups
//     over a day see them.) On an index the caller reports constant_key.
//  2. time_bucket: the only variable part is a <date> or <datetime>, its
//     keys are written Repeats (2) times each or more, and the newest
//     value, or the value current when written (the record's time within
//     the value's day, hour or minute, ±60 s), took half the WCU or more.
//     A record's own timestamp (ORDER#<datetime>) is never one: its keys do
//     not repeat.
//  3. dominant_key: the heaviest key's proven share (its lower bound) is
//     half the WCU or more, over 10 records or more, or 100 for an open
//     pattern (below): one user writing three times is not yet a hot key,
//     one brand taking 9 of 10 threats is.
//  4. low_cardinality: fewer than 100 distinct keys, written at least
//     twice each on average, and no open part. A pattern is open if a
//     part is a <uuid>, <id>, <hex>, <email> or <bytes>, a <n> of more than
//     2 digits, or a <datetime> to the second: such a part is high
//     cardinality by design, and few keys of it are too little traffic,
//     not a small key space. USER#<uuid> seen 5 times, each a new user, is
//     healthy; STATUS#<*> written 6 times over 3 statuses, or SHARD_<n>
//     over ten shards, is low_cardinality.
//  5. healthy.
package keypattern
