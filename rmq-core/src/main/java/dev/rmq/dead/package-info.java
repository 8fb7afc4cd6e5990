/** The dead queue: messages that failed more than the maximum retries or could not be decoded. */
@NullMarked
package dev.rmq.dead;

import org.jspecify.annotations.NullMarked;
