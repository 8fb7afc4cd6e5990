/**
 * What rmq's consumers do, as structured events for machines ({@link dev.rmq.events.RmqEventListener}):
 * slots assigned, released and fenced, acknowledgements and their outcomes, lease recoveries. A listener is
 * given to {@code RmqClient.builder(...).events(...)}.
 */
@NullMarked
package dev.rmq.events;

import org.jspecify.annotations.NullMarked;
