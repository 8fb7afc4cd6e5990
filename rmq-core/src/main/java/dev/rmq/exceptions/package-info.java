/**
 * rmq's own runtime exceptions: {@link dev.rmq.exceptions.RmqException} and its subclass
 * {@link dev.rmq.exceptions.RmqUnavailableException} for a Redis that did not answer. Bad arguments throw
 * {@link java.lang.IllegalArgumentException} instead, at once and before anything reaches Redis.
 */
@NullMarked
package dev.rmq.exceptions;

import org.jspecify.annotations.NullMarked;
