/** The Redis side of the admin API: one pause flag per slot, written and read in one pipeline. */
package dev.rmq.internal.admin;
