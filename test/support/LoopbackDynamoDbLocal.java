// Starts DynamoDB Local (the jar of amplify-dynamodb-simulator) listening on 127.0.0.1 only.
// DynamoDB Local has no option for the address it listens on, and listens on every interface;
// this sets the host of its Jetty connector before it starts. Run with Java's source launcher
// (`java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java <DynamoDB Local's own arguments>`).
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
  }
}
