/** The dead queue on Redis, for {@link dev.rmq.dead.RmqDeadQueue}: one dead_* script call per slot. */
package dev.rmq.internal.dead;
