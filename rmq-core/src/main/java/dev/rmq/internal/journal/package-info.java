/** The journal's hooks: a producer that tells the journal what Redis stored, and the restore of what Redis lost. */
package dev.rmq.internal.journal;
