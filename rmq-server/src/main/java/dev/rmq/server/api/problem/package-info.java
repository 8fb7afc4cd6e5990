/**
 * The API's errors: the {@link dev.rmq.server.api.problem.Problem} types, the
 * {@link dev.rmq.server.api.problem.ApiException} controllers throw for input they refuse, the advice that turns
 * every failure into an RFC 9457 problem, and the writer of {@code application/problem+json}.
 */
@NullMarked
package dev.rmq.server.api.problem;

import org.jspecify.annotations.NullMarked;
