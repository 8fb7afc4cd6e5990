/**
 * Hints for ahead-of-time builds and native images: what rmq reaches by reflection or as resources.
 */
@NullMarked
package dev.rmq.spring.aot;

import org.jspecify.annotations.NullMarked;
