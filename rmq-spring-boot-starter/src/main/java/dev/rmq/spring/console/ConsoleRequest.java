package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;

/**
 * What a page needs to know of the request it answers.
 *
 * @param base       the way back to the console's root from this page, relative ({@code ""}, {@code "../"}...), so
 *                   that links and assets work under any prefix a proxy adds
 * @param canWrite   whether the page shows the controls that act, and the console accepts them
 * @param csrfHeader the header that carries Spring Security's CSRF token on a write, null without one
 * @param csrfToken  the token, null without one
 * @param refreshMs  how often the page refreshes itself
 * @param journal    whether the application has a journal, whose page the navigation links to
 */
record ConsoleRequest(String base, boolean canWrite, @Nullable String csrfHeader, @Nullable String csrfToken,
                      long refreshMs, boolean journal) {
}
