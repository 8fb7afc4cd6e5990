package dev.rmq.samples.console;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Debian's Chromium, headless, driven through its chromedriver: nothing is downloaded, and the test is skipped, saying
 * why, on a machine without them ({@code apt-get install chromium chromium-driver}; {@code .ci/run} installs them).
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Where each page's screenshot goes. */
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    private final ChromeDriver driver;
    private final Path profile;

    private Browser(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts Chromium, or skips the test when this machine has no Chromium or no chromedriver. */
    static Browser start() throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "the console's browser tests need Debian's chromium and chromium-driver (" + CHROMIUM + ", "
                        + CHROMEDRIVER + "); install them with apt-get install chromium chromium-driver");
        Path profile = Files.createTempDirectory("rmq-console-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,1000", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        return new Browser(new ChromeDriver(service, options), profile);
    }

    ChromeDriver driver() {
        return driver;
    }

    void open(String url) {
        driver.get(url);
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    /**
     * The element's text. The console replaces its main part when a refresh brings something new, so an element found
     * a moment ago may be gone: each read here finds its elements again until it reads them all from one drawing.
     */
    String text(String css) {
        return fresh(driver -> driver.findElement(By.cssSelector(css)).getText());
    }

    /** What {@code read} gives for each element that matches, all from one drawing of the page. */
    <T> List<T> each(String css, Function<WebElement, T> read) {
        return fresh(driver -> driver.findElements(By.cssSelector(css)).stream().map(read).toList());
    }

    /** Clicks the element that {@code find} finds, finding it again when a refresh replaced it before the click. */
    void click(Function<ChromeDriver, WebElement> find) {
        until(driver -> {
            WebElement element = find.apply(driver);
            if (element == null) {
                return null;
            }
            element.click();
            return Boolean.TRUE;
        });
    }

    void click(String css) {
        click(driver -> driver.findElement(By.cssSelector(css)));
    }

    private <T> T fresh(Function<ChromeDriver, T> read) {
        for (int attempt = 1; ; attempt++) {
            try {
                return read.apply(driver);
            } catch (StaleElementReferenceException e) {
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    <T> T until(Function<ChromeDriver, T> condition) {
        return new WebDriverWait(driver, Duration.ofSeconds(20), Duration.ofMillis(100))
                .ignoring(StaleElementReferenceException.class).until(ignored -> condition.apply(driver));
    }

    /** Saves what the browser shows as {@code name}.png under {@link #SCREENSHOTS}. */
    void screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        File shot = driver.getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
