/**
 * merchant-tasks, a PRIORITY topic: tasks of key-account merchants are consumed before the others.
 * The topic has one slot, so that all tasks share one order.
 */
@NullMarked
package dev.rmq.samples.merchanttasks;

import org.jspecify.annotations.NullMarked;
