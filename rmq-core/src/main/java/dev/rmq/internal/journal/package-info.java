/** The journal's hooks: a producer that tells the journal what Redis stored, and the restore of what Redis lost. */
@NullMarked
package dev.rmq.internal.journal;

import org.jspecify.annotations.NullMarked;
