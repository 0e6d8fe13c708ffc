package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The status page as a file: its Content-Security-Policy admits exactly its own script and style,
 * it loads nothing from elsewhere, and its script never parses data as HTML. The browser test in
 * it-tests renders it against a running serve.
 */
class StatusPageTest {
    private static String page;

    @BeforeAll
    static void read() throws IOException {
        try (InputStream in = StatusPageTest.class.getResourceAsStream("status.html")) {
            assertThat(in).as("status.html next to this package's classes").isNotNull();
            page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void thePolicyHashesAreThoseOfTheInlineScriptAndStyle() {
        String policy = only("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">");

        // A browser hashes the element's text exactly; any edit of either changes its hash.
        assertThat(policy)
                .as("the policy after an edit of the page; put the new hashes into its meta element")
                .contains("script-src 'sha256-" + sha256(only("<script>(.*?)</script>")) + "'")
                .contains("style-src 'sha256-" + sha256(only("<style>(.*?)</style>")) + "'")
                .contains("default-src 'none'")
                .contains("connect-src 'self'");
    }

    @Test
    void loadsNothingFromAnotherOrigin() {
        assertThat(page).doesNotContain("://").doesNotContain("@import").doesNotContain("url(")
                .doesNotContainPattern("(?i)<(script|link|img|iframe)\\b[^>]*\\b(src|href)=");
    }

    @Test
    void theScriptPutsDataIntoTheDomAsTextOnly() {
        String script = only("<script>(.*?)</script>");

        assertThat(script).doesNotContain("innerHTML").doesNotContain("outerHTML")
                .doesNotContain("insertAdjacentHTML").doesNotContain("document.write")
                .doesNotContainPattern("\\beval\\(").doesNotContain("new Function");
    }

    /** The one match of {@code regex}'s group in the page: a second script or style would escape the policy. */
    private static String only(String regex) {
        Matcher matcher = Pattern.compile(regex, Pattern.DOTALL).matcher(page);
        assertThat(matcher.find()).as("the page has %s", regex).isTrue();
        String found = matcher.group(1);
        assertThat(matcher.find()).as("the page has %s only once", regex).isFalse();
        return found;
    }

    private static String sha256(String text) {
        try {
            return Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
