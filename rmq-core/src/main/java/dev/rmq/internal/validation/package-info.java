/**
 * Checks of arguments that become Redis scores, key parts or durations, shared by the API types that take
 * them; each throws {@link java.lang.IllegalArgumentException} naming what was wrong and what is allowed.
 */
@NullMarked
package dev.rmq.internal.validation;

import org.jspecify.annotations.NullMarked;
