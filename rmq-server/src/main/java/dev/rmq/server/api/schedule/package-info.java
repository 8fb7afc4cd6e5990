/**
 * Operating recurring schedules over HTTP: their state, pause, resume, trigger and remove. The schedules themselves
 * are declared in the configuration ({@code rmq.schedules.*}), alike on every server.
 */
@NullMarked
package dev.rmq.server.api.schedule;

import org.jspecify.annotations.NullMarked;
