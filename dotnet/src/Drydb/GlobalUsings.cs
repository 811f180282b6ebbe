// The namespaces every file of the package may use, imported once here.
global using System;
global using System.Buffers;
global using System.Collections.Generic;
global using System.IO;
global using System.Runtime.CompilerServices;
global using System.Runtime.InteropServices;
global using System.Text;
global using System.Threading;
global using System.Threading.Tasks;
global using Drydb.Native;
