/** The dead queue on Redis, for {@link dev.rmq.dead.RmqDeadQueue}: one dead_* script call per slot. */
@NullMarked
package dev.rmq.internal.dead;

import org.jspecify.annotations.NullMarked;
