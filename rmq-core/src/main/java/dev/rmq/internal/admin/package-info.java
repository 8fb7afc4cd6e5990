/** The Redis side of the admin API: one pause flag per slot, written and read in one pipeline. */
@NullMarked
package dev.rmq.internal.admin;

import org.jspecify.annotations.NullMarked;
