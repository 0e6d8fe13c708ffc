package dev.egressproxies.kvm.common.xml;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import javax.xml.namespace.NamespaceContext;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * XML written by the builders, parsed back with the JDK's own parser (independently of the
 * builders' helpers) and queried with XPath; {@code ep:} names the platform's namespace.
 */
final class ParsedXml {
    private final Document document;

    private ParsedXml(Document document) {
        this.document = document;
    }

    static ParsedXml parse(String xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return new ParsedXml(factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml))));
        } catch (Exception e) {
            throw new AssertionError("the builder wrote XML the JDK cannot parse:\n" + xml, e);
        }
    }

    /** The string value of {@code xpath}. */
    String text(String xpath) {
        return (String) evaluate(xpath, XPathConstants.STRING);
    }

    /** How many nodes {@code xpath} selects. */
    int count(String xpath) {
        return ((NodeList) evaluate(xpath, XPathConstants.NODESET)).getLength();
    }

    /** The string values of the nodes {@code xpath} selects. */
    List<String> texts(String xpath) {
        NodeList nodes = (NodeList) evaluate(xpath, XPathConstants.NODESET);
        List<String> texts = new ArrayList<>();
        for (int index = 0; index < nodes.getLength(); index++) {
            Node node = nodes.item(index);
            texts.add(node.getTextContent());
        }
        return texts;
    }

    private Object evaluate(String xpath, javax.xml.namespace.QName type) {
        try {
            var path = XPathFactory.newInstance().newXPath();
            path.setNamespaceContext(new NamespaceContext() {
                @Override
                public String getNamespaceURI(String prefix) {
                    return "ep".equals(prefix) ? InstanceMetadata.NAMESPACE : XMLConstants.NULL_NS_URI;
                }

                @Override
                public String getPrefix(String namespaceUri) {
                    return null;
                }

                @Override
                public java.util.Iterator<String> getPrefixes(String namespaceUri) {
                    return null;
                }
            });
            return path.evaluate(xpath, document, type);
        } catch (XPathExpressionException e) {
            throw new AssertionError("bad XPath in the test: " + xpath, e);
        }
    }
}
