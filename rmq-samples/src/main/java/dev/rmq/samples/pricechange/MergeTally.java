package dev.rmq.samples.pricechange;

import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the price updates sent per product since its image was last rendered, so that the renderer
 * can say how many updates one render absorbed. In memory, for this single-instance demo.
 */
@Component
public class MergeTally {

    private final Map<String, Integer> sent = new ConcurrentHashMap<>();

    void sent(String sku) {
        sent.merge(sku, 1, Integer::sum);
    }

    /** The updates sent since the last call for this product. */
    int take(String sku) {
        Integer count = sent.remove(sku);
        return count == null ? 0 : count;
    }
}
