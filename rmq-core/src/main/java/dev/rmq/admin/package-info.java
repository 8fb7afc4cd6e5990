/**
 * Operating topics at run time, across every application that consumes them: pausing and resuming. What is set
 * here lives in Redis, so it holds for every consumer at once and survives restarts.
 */
@NullMarked
package dev.rmq.admin;

import org.jspecify.annotations.NullMarked;
