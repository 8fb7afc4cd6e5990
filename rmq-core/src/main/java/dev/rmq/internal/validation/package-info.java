/**
 * Checks of arguments that become Redis scores, key parts or durations, shared by the API types that take
 * them; each throws {@link java.lang.IllegalArgumentException} naming what was wrong and what is allowed.
 */
package dev.rmq.internal.validation;
