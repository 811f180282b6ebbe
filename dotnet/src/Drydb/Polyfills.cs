// What netstandard2.1's compiler needs for C# 9+ features (init accessors on records).
#if !NET5_0_OR_GREATER
namespace System.Runtime.CompilerServices
{
  internal static class IsExternalInit { }
}
#endif
