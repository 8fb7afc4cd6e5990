/** The dead queue: messages that failed more than the maximum retries or could not be decoded. */
package dev.rmq.dead;
