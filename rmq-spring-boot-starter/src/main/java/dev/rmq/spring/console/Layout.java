package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;

/** The document around every page: its head, the assets served from the jar, and the navigation. */
final class Layout {

    private Layout() {
    }

    /** A whole page around {@code main}, the part a refresh replaces. */
    static String page(ConsoleRequest request, String title, String main) {
        Html html = new Html();
        html.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .raw("<title>").text(title).raw(" · rmq</title>")
                .raw("<link rel=\"stylesheet\" href=\"" + Html.attr(request.base()) + "assets/console.css\">")
                .raw("<meta name=\"rmq-refresh\" content=\"" + request.refreshMs() + "\">");
        if (request.csrfHeader() != null && request.csrfToken() != null) {
            html.raw("<meta name=\"rmq-csrf-header\" content=\"" + Html.attr(request.csrfHeader()) + "\">")
                    .raw("<meta name=\"rmq-csrf-token\" content=\"" + Html.attr(request.csrfToken()) + "\">");
        }
        html.raw("<script src=\"" + Html.attr(request.base()) + "assets/console.js\" defer></script></head><body>")
                .raw("<header><nav><a class=\"brand\" href=\"" + Html.attr(request.base().isEmpty() ? "./"
                        : request.base()) + "\">rmq</a>")
                .raw("<a href=\"" + Html.attr(request.base()) + "lookup\">Find a message</a>")
                .raw(request.journal() ? "<a href=\"" + Html.attr(request.base()) + "journal\">Journal</a>" : "")
                .raw(request.canWrite() ? "" : "<span class=\"badge\">read-only</span>")
                .raw("</nav></header><main id=\"rmq-main\">").raw(main).raw("</main>")
                .raw("<div id=\"rmq-status\" role=\"status\"></div></body></html>");
        return html.toString();
    }

    /**
     * A button that asks the console to act: the script sends its data as a POST to {@code actions}, after
     * {@code confirm} when the action cannot be undone.
     */
    static String action(String label, String action, String topic, String key, @Nullable Integer slot,
                         String confirm) {
        return action(label, action, topic, key, slot, "", confirm);
    }

    /** As {@link #action(String, String, String, String, Integer, String)}, for a message of another slot basis. */
    static String action(String label, String action, String topic, String key, @Nullable Integer slot, String basis,
                         String confirm) {
        return "<button type=\"button\" class=\"act" + (confirm.isEmpty() ? "" : " danger") + "\" data-action=\""
                + Html.attr(action) + "\" data-topic=\"" + Html.attr(topic) + "\" data-key=\"" + Html.attr(key)
                + "\" data-slot=\"" + (slot == null ? "" : slot) + "\" data-basis=\"" + Html.attr(basis)
                + "\" data-confirm=\"" + Html.attr(confirm) + "\">" + Html.escape(label) + "</button>";
    }
}
