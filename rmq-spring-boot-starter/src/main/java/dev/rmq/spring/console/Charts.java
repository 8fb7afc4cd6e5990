package dev.rmq.spring.console;

import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * Line charts as inline SVG, drawn on the server from the history's samples: no script, no library, and nothing the
 * Content-Security-Policy has to allow.
 */
final class Charts {

    private static final int WIDTH = 600;
    private static final int HEIGHT = 120;

    private Charts() {
    }

    /** One series over the history's span, with its latest value and its peak. */
    static String line(String title, String unit, List<ConsoleHistory.Sample> samples,
                       ToLongFunction<ConsoleHistory.Sample> value) {
        Html html = new Html();
        html.raw("<figure class=\"chart\"><figcaption>").text(title);
        if (samples.isEmpty()) {
            return html.raw(" <span class=\"muted\">no samples yet</span></figcaption></figure>").toString();
        }
        long peak = 0;
        for (ConsoleHistory.Sample sample : samples) {
            peak = Math.max(peak, value.applyAsLong(sample));
        }
        // a series of zeros lies on the baseline
        long scale = Math.max(1, peak);
        long latest = value.applyAsLong(samples.get(samples.size() - 1));
        html.raw(" <span class=\"muted\">now ").text(latest + unit).raw(", peak ").text(peak + unit).raw("</span>")
                .raw("</figcaption><svg viewBox=\"0 0 " + WIDTH + " " + HEIGHT + "\" role=\"img\" aria-label=\"")
                .text(title).raw("\"><polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" points=\"");
        long first = samples.get(0).at().toEpochMilli();
        long span = Math.max(1, samples.get(samples.size() - 1).at().toEpochMilli() - first);
        for (ConsoleHistory.Sample sample : samples) {
            double x = samples.size() == 1 ? WIDTH : (sample.at().toEpochMilli() - first) * (double) WIDTH / span;
            double y = HEIGHT - 2 - value.applyAsLong(sample) * (HEIGHT - 4.0) / scale;
            html.raw(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        return html.raw("\"/></svg></figure>").toString();
    }
}
