// Package sketch summarises a weighted stream of keys (for hotkeys: the
// partition keys of a DynamoDB table, weighted by the WCU of each write) in
// bounded memory, with stated error bounds, in a form that merges and
// encodes compactly.
//
// A Summary combines, behind one Add per record and one hash per key:
//
//   - HeavyHitters: weighted Space-Saving (Metwally, Agrawal and El Abbadi,
//     ICDT 2005) with k counters, merged per Agarwal et al., "Mergeable
//     Summaries" (PODS 2012). No key heavier than W/k (W: total weight) is
//     ever missed, and each reported key carries bounds that bracket its
//     true weight, at most W/k apart.
//   - CountMin: Count-Min (Cormode and Muthukrishnan, J. Algorithms 2005)
//     with conservative update (Estan and Varghese, SIGCOMM 2002): an upper
//     bound for any key, within e/width × W of the truth with probability
//     1 - e^-depth. It tightens the heavy hitters' upper bounds, and keeps
//     a key out of the heavy-hitter table when it proves the key too light
//     to displace anything there. It never picks candidates itself: a
//     Count-Min candidate list produces false positives on adversarial
//     streams.
//   - the distinct-key count: exact, from a set of key hashes, up to 4,096
//     keys; past that, or once encoded or merged, from
//     github.com/axiomhq/hyperloglog (HyperLogLog, Flajolet et al. 2007, with
//     the sparse representation of Heule et al., EDBT 2013) at precision 14
//     (HLLPrecision, the one precision of every such sketch in hotkeys):
//     about 0.8 % standard error. A summary's distinct-key sketch also
//     travels alone (AppendDistinct): DistinctUnion unites such sketches,
//     PackDistinct and UnpackDistinct store them compactly, and this
//     package is the only one that reads the library's byte layout.
//   - the exact total weight.
//
// Summaries of different records of a stream (parallel batches, shards)
// merge into a summary of all of them with the same guarantees. They encode
// to a versioned, checksummed binary form: under 56 KB with DefaultConfig
// at a million distinct 64-byte keys.
//
// Keys are hashed with XXH3-64 (Hash), whose output is fixed by its
// specification, so summaries made by different processes and versions
// merge. The package is pure: no I/O, no clock, and no global state but a
// pool of decompressors that keeps nothing between calls.
package sketch
